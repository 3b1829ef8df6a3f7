// A service that counts expires_at from the issue instant rounded to the nearest second
// (`Math.round(Date.now() / 1000) + ttl`, Python's `round(time.time())`), not rounded down. §2
// only says epoch seconds, so a token may live up to half a second past its lifetime: conformant.
// What it changes is where expires_at's whole-second edge lies: at the half second of the clock
// that stamps the Date header, not at its change of second. A client (or a harness) that took a
// change of the Date header's second for a change of expires_at's would be wrong here by half a
// second (token.same-before-expiry's span rule, docs/checks.md).

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'expires-at-rounded',
  description:
    'expires_at is the issue instant rounded to the nearest second plus the lifetime, not rounded down: its whole-second edge falls at the half second of the Date header clock',
  override: () => ({
    lifetime(nowMs, ttlS) {
      const expiresAtS = Math.round(nowMs / 1000) + ttlS;
      return { expiresAtS, validUntilMs: expiresAtS * 1000 };
    },
  }),
});
