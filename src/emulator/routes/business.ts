// POST /v1/evaluation and /v1/ach_transactions (§4.4). The spec names them only, so the answers
// are plausible stand-ins; what matters for the harness is the bearer gate in front of them.

import { checkBearer } from '../bearer.js';
import { invalidRequest, json } from '../replies.js';
import { isJsonObject } from '../../spec/json-object.js';
import type { BusinessEndpoint } from '../../spec/endpoints.js';
import type { Ctx, Reply } from '../types.js';

export function business(route: BusinessEndpoint, ctx: Ctx, body: unknown): Reply {
  const check = checkBearer(ctx);
  if (!ctx.b.admitBusiness(check)) return ctx.b.unauthorized(!check.ok && check.reason === 'missing' ? 'missing' : 'invalid');
  if (!isJsonObject(body)) return invalidRequest();
  ctx.env.seq += 1;
  if (route === 'evaluation') {
    return json(200, { evaluation_id: `ev_${ctx.env.seq}`, decision: 'approved', score: 720 });
  }
  return json(200, { transactions: [], count: 0 });
}
