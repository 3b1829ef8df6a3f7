// Honest about it (expires_at matches), but the lifetime is not the one §5.4 and §8 promise.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'wrong-lifetime',
  spec: '§5.4, §8',
  description: 'tokens live, and expires_at says, half the configured lifetime (breaks §5.4, §8)',
  override: (base) => ({
    lifetime: (nowMs, ttlS) => base.lifetime(nowMs, Math.max(1, Math.floor(ttlS / 2))),
  }),
});
