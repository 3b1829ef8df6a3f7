// Once a client has been limited it stays limited, Retry-After or not: §7 promises a client that
// waits and retries gets back in, so a limit that never lifts breaks it.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'rate-limit-never-lifts',
  spec: '§7',
  description: 'once limited, a client is refused with 429 for good, however long it waits (breaks §7)',
  override: (base) => {
    // Per client key, as the limiter itself keys: another client is not locked out by this one.
    const lockedOut = new Set<string>();
    return {
      limit: (ctx, key) => {
        if (lockedOut.has(key)) return { ok: false, retryAfterS: 1 };
        const decision = base.limit(ctx, key);
        if (!decision.ok) lockedOut.add(key);
        return decision;
      },
    };
  },
});
