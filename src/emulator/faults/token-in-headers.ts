// A session layer bolted on: the 401 body is right, but the answer sets a cookie and an
// Authorization header holding the client's working token, where a body check never looks.

import { changeTokensReply } from './tokens-reply.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'token-in-headers',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for bad credentials sets a cookie and an Authorization header with a working token of the environment’s client (breaks §4.1 rule 2, §7)',
  override: (base) =>
    changeTokensReply(base, async (ctx, reply) => {
      if (reply.status !== 401) return reply;
      const { token } = await ctx.b.issue(ctx, ctx.env.credentials.clientId);
      return {
        ...reply,
        headers: {
          ...reply.headers,
          'set-cookie': `ces_session=${token}; Path=/; HttpOnly; Secure`,
          authorization: `Bearer ${token}`,
        },
      };
    }),
});
