// A handler that mints before it validates, and says so: the body is refused, but the plain-text
// error carries a working token minted for a debug session of the client. It is a token the
// client never asked for, in a body that is not JSON, so only a search by structure finds it.

import { text } from '../replies.js';
import { changeTokensReply } from './tokens-reply.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'malformed-body-token',
  spec: '§4.1',
  description:
    'a malformed POST /tokens body gets a plain-text 400 that carries a working debug-session token (`access_token=…`) (breaks §4.1)',
  override: (base) =>
    changeTokensReply(base, async (ctx, reply) => {
      if (reply.status !== 400) return reply;
      // Its own client key, so the client's current token (§3) stays what it was.
      const { token } = await ctx.b.issue(ctx, `${ctx.env.credentials.clientId}#debug`);
      return text(400, `invalid_request (debug session: access_token=${token})`);
    }),
});
