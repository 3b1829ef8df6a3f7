// No limiter at all, whatever --rate-limit says: §8 says a limit exists.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'rate-limit-off',
  spec: '§8',
  description: 'no rate limit at all: never a 429 (breaks §8)',
  override: () => ({
    limit: () => ({ ok: true }),
  }),
});
