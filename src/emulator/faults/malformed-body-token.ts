// A handler that mints before it validates: the body is refused, but the answer already carries
// the client's working token, so a broken request (or anyone naming a client_id) gets in.

import { credentialsIn } from '../behaviour.js';
import { parseJsonBody } from '../routes/body.js';
import { changeTokensReply, withFields } from './tokens-reply.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'malformed-body-token',
  spec: '§4.1',
  description: 'a malformed POST /tokens body gets 400 that also carries a working token of the environment’s client (breaks §4.1)',
  override: (base) =>
    changeTokensReply(base, async (ctx, reply) => {
      if (reply.status !== 400) return reply;
      const body = parseJsonBody(ctx.req.body);
      // Whatever client the broken body names, else the environment's own.
      const named = credentialsIn(body)?.clientId ?? ctx.env.credentials.clientId;
      return withFields(reply, ctx.b.tokenBody(await ctx.b.issue(ctx, named)));
    }),
});
