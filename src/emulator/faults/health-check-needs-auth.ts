// §4.2: the health check takes no credentials. Here it wants a live bearer token.

import { checkBearer } from '../bearer.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'health-check-needs-auth',
  spec: '§4.2',
  description: 'the health check answers 401 without a valid bearer token (breaks §4.2)',
  override: (base) => ({
    guard: (ctx, route) => {
      if (route !== 'health') return base.guard(ctx, route);
      const check = checkBearer(ctx);
      if (check.ok) return base.guard(ctx, route);
      return ctx.b.unauthorized(check.reason === 'missing' ? 'missing' : 'invalid');
    },
  }),
});
