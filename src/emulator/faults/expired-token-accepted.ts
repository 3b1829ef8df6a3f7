// Bearer tokens never count as expired. POST /tokens still mints a new one after expiry, so only
// the acceptance of the old token changes.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'expired-token-accepted',
  spec: '§3, §7',
  description: 'expired tokens are still accepted by /tokens/validate and the business endpoints (breaks §3, §7)',
  override: () => ({
    bearerExpired: () => false,
  }),
});
