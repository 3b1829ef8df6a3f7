// POST /v1/evaluation and /v1/ach_transactions (§4.4). What matters for the harness is the bearer
// gate in front of them; the answer behind it is the behaviour's (businessReply).

import { checkBearer } from '../bearer.js';
import { invalidRequest } from '../replies.js';
import { isJsonObject } from '../../spec/json-object.js';
import type { BusinessEndpoint } from '../../spec/endpoints.js';
import type { Ctx, Reply } from '../types.js';

export function business(route: BusinessEndpoint, ctx: Ctx, body: unknown): Reply {
  const check = checkBearer(ctx);
  if (!ctx.b.admitBusiness(check))
    return ctx.b.unauthorized(!check.ok && check.reason === 'missing' ? 'missing' : 'invalid');
  if (!isJsonObject(body)) return invalidRequest();
  return ctx.b.businessReply(ctx, route, body);
}
