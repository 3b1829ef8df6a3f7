// Only the client id is compared; an unknown client id still gets 401.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'secret-not-checked',
  spec: '§4.1 rule 2',
  description: 'any client_secret is accepted for a known client_id (breaks §4.1 rule 2)',
  override: () => ({
    authenticate: (ctx, given) => given.clientId === ctx.env.credentials.clientId,
  }),
});
