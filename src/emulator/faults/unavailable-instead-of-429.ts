// Some gateways shed load with 503. Retry-After and the body stay, only the status differs.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'unavailable-instead-of-429',
  spec: '§7',
  description: 'rate-limited requests get 503 instead of 429 (breaks §7)',
  override: (base) => ({
    rateLimited: (retryAfterS) => ({ ...base.rateLimited(retryAfterS), status: 503 }),
  }),
});
