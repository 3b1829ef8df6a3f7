// A service far away: each answer leaves ~50 ms (± 20 ms) after the request is complete, as it
// would over a wide-area link or behind a slow gateway. Nothing the service decides changes; any
// check or rate-limit measurement that assumed a near-zero round trip shows here.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'latency',
  description: 'every answer is delayed 50 ms ± 20 ms (a service across a wide-area network)',
  transport: { answerDelay: { meanMs: 50, jitterMs: 20 } },
});
