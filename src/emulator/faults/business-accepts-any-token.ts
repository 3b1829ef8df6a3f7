// The gate only checks that a Bearer header is there, not that the token is known or live.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'business-accepts-any-token',
  spec: '§4.4, §5.3',
  description: 'business endpoints accept any Bearer value, unknown or expired (breaks §4.4, §5.3)',
  override: (base) => ({
    admitBusiness: (check) =>
      base.admitBusiness(check) || (!check.ok && (check.reason === 'unknown' || check.reason === 'expired')),
  }),
});
