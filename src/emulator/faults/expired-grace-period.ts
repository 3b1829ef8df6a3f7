// A grace period after expiry: the token keeps working for a minute after expires_at. POST /tokens
// still mints a new one at expiry, so only the acceptance of the expired token changes.

import { defineFault } from './types.js';

/** Long past the checks' clock tolerance, short enough to look like a deliberate leniency. */
const GRACE_MS = 60_000;

export const fault = defineFault({
  name: 'expired-grace-period',
  spec: '§3, §7',
  description: `expired tokens are still accepted for ${GRACE_MS / 1000} s after expires_at by /tokens/validate and the business endpoints (breaks §3, §7)`,
  override: () => ({
    bearerExpired: (record, nowMs) => nowMs >= record.validUntilMs + GRACE_MS,
  }),
});
