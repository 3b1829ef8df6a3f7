// GET or POST /tokens/validate (§4.3): the bearer token's verdict; any request body is ignored.

import { checkBearer } from '../bearer.js';
import type { Ctx, Reply } from '../types.js';

export const validate = (ctx: Ctx): Reply => ctx.b.validateReply(ctx, checkBearer(ctx));
