// secret-in-error, hex-encoded: a debug message prints the expected secret's bytes, where a search
// for the secret as text (raw, JSON-escaped, percent-encoded) does not find it.

import { parseJsonBody } from '../routes/body.js';
import { changeTokensReply, withFields } from './tokens-reply.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'secret-hex-in-error',
  spec: '§4.1 rule 2, §7',
  description: 'the 401 for a wrong secret names the expected one hex-encoded (`expected bytes …`) (breaks §4.1 rule 2, §7)',
  override: (base) =>
    changeTokensReply(base, (ctx, reply) => {
      if (reply.status !== 401) return reply;
      // Only for the environment's own client_id: the message is about its secret.
      if (ctx.b.readCredentials(parseJsonBody(ctx.req.body))?.clientId !== ctx.env.credentials.clientId) return reply;
      return withFields(reply, { detail: `secret mismatch: expected bytes ${Buffer.from(ctx.env.credentials.clientSecret).toString('hex')}` });
    }),
});
