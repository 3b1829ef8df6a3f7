// POST /tokens (§4.1): credentials in, the client's current token out (§3).

import { invalidRequest, json, NO_STORE } from '../replies.js';
import type { Ctx, Reply } from '../types.js';

export async function tokens(ctx: Ctx, body: unknown): Promise<Reply> {
  const given = ctx.b.readCredentials(body);
  if (given === undefined) return invalidRequest();
  if (!ctx.b.authenticate(ctx, given)) return ctx.b.unauthorized('credentials');
  // Awaited because a fault may make issuance asynchronous; the conformant one is synchronous.
  const record = await ctx.b.issue(ctx, given.clientId);
  return json(200, ctx.b.tokenBody(record), NO_STORE);
}
