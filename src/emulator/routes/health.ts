// POST /tokens/health_check (§4.2): no body, no credentials, one line of text.

import type { Ctx, Reply } from '../types.js';

export const health = (ctx: Ctx): Reply => ctx.b.healthReply(ctx.now);
