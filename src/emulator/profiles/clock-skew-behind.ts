// The other way round from clock-skew.ts: the service's clock lags the client's, so its tokens
// outlive expires_at as the client reads it, and a token looks longer-lived than promised.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'clock-skew-behind',
  description:
    "the service's clock runs 4 s behind: issue, expiry, expires_at, the health timestamp and the Date header all on that clock",
  clockOffsetMs: -4_000,
});
