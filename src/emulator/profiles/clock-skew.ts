// A service host whose clock runs ahead of the client's: NTP-less containers and VMs resumed from
// a snapshot drift by seconds. The spec promises nothing about the service's clock, only that a
// token lives until its own expires_at; a client that judges expiry by its own clock is off by
// the skew, and a harness that assumed it away would blame the service for its own clock.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'clock-skew',
  description:
    "the service's clock runs 4 s ahead: issue, expiry, expires_at, the health timestamp and the Date header all on that clock",
  clockOffsetMs: 4_000,
});
