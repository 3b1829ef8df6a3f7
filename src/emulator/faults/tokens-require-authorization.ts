// §4.1: "No Authorization header is needed". Any Authorization header (say Basic) lets the call through.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'tokens-require-authorization',
  spec: '§4.1',
  description: 'POST /tokens without an Authorization header gets 401 (breaks §4.1)',
  override: (base) => ({
    guard: (ctx, route) =>
      route === 'tokens' && !ctx.req.headers.authorization ? ctx.b.unauthorized('credentials') : base.guard(ctx, route),
  }),
});
