// A debugging leftover seen in the wild: the refusal is right, but the body also carries the
// client's working token, so anyone who knows a client_id gets in without its secret.

import { parseJson } from '../../http/read-answer.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'refusal-carries-token',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for bad credentials also carries a working token of the environment’s client (breaks §4.1 rule 2, §7)',
  override: (base) => ({
    guard: async (ctx, route) => {
      const earlier = await base.guard(ctx, route);
      if (earlier || route !== 'tokens') return earlier;
      const given = ctx.b.readCredentials(parseJson(ctx.req.body.toString('utf8')));
      if (given === undefined || ctx.b.authenticate(ctx, given)) return undefined;
      const record = await ctx.b.issue(ctx, ctx.env.credentials.clientId);
      const refusal = ctx.b.unauthorized('credentials');
      return {
        ...refusal,
        body: JSON.stringify({ ...(JSON.parse(String(refusal.body)) as object), ...ctx.b.tokenBody(record) }),
      };
    },
  }),
});
