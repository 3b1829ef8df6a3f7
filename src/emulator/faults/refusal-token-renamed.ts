// The refusal-carries-token leftover, dressed up: the working token sits under a name no list of
// credential fields holds (`accessToken`) and is base64-encoded, so only a search for the token's
// value in every encoding, or trying what the refusal carries, finds it.

import { parseJsonBody } from '../routes/body.js';
import type { Behaviour } from '../types.js';
import { changeTokensReply, withFields } from './tokens-reply.js';
import { defineFault } from './types.js';

/** The 401 for bad credentials with `fields(token)` added, `token` a working one of the environment's client. */
export const refusalCarrying = (
  base: Behaviour,
  fields: (token: string) => Record<string, unknown>,
): Pick<Behaviour, 'guard'> =>
  changeTokensReply(base, async (ctx, reply) => {
    if (reply.status !== 401 || ctx.b.readCredentials(parseJsonBody(ctx.req.body)) === undefined) return reply;
    const { token } = await ctx.b.issue(ctx, ctx.env.credentials.clientId);
    return withFields(reply, fields(token));
  });

export const fault = defineFault({
  name: 'refusal-token-renamed',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for bad credentials carries a working token of the environment’s client base64-encoded under `accessToken` (breaks §4.1 rule 2, §7)',
  override: (base) => refusalCarrying(base, (token) => ({ accessToken: Buffer.from(token).toString('base64') })),
});
