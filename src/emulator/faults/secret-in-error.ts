// An error message written for the developer: the 401 for a wrong secret says which secret was
// expected, handing the real one to whoever tries a wrong one.

import { parseJsonBody } from '../routes/body.js';
import type { Behaviour } from '../types.js';
import { changeTokensReply, withFields } from './tokens-reply.js';
import { defineFault } from './types.js';

/** The 401 for a wrong secret of the environment's own client, with `detail(secret)` added. */
export const namingTheSecret = (base: Behaviour, detail: (secret: string) => string): Pick<Behaviour, 'guard'> =>
  changeTokensReply(base, (ctx, reply) => {
    if (reply.status !== 401) return reply;
    // Only for the environment's own client_id: the message is about its secret.
    if (ctx.b.readCredentials(parseJsonBody(ctx.req.body))?.clientId !== ctx.env.credentials.clientId) return reply;
    return withFields(reply, { detail: detail(ctx.env.credentials.clientSecret) });
  });

export const fault = defineFault({
  name: 'secret-in-error',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for a wrong secret names the expected one in a message (`secret mismatch: expected …`) (breaks §4.1 rule 2, §7)',
  override: (base) => namingTheSecret(base, (secret) => `secret mismatch: expected ${secret}`),
});
