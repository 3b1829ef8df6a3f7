// The profiles in groups that set nothing twice, so that one emulator can show several of them at
// once as a real service does (a JWT issuer behind an HTTP/2 gateway whose clock is a few seconds
// off). The suite (test/integration/profiles.test.ts) and the false-alarm bench run `run` once per
// group rather than once per profile: a k6 run per profile made the suite twenty minutes longer.

import type { ProfileName } from './index.js';

export const PROFILE_GROUPS: ReadonlyArray<readonly ProfileName[]> = [
  ['http2', 'extra-fields', 'jwt', 'health-iso8601', 'clock-skew', 'ratelimit-headers'],
  [
    'compression',
    'oauth-error-fields',
    'health-http-date',
    'idle-close',
    'intermediate-ca',
    'clock-skew-behind',
    // Not beside connection-close: a handshake per request and Kong's announced resets together
    // kept `run`'s 30 s probe from a sustained rate (group 4, 2 runs at once beside the real tier).
    'ratelimit-headers-kong',
  ],
  ['latency', 'health-clf', 'silent-close', 'business-rejects-payload'],
  ['connection-close', 'slow-business'],
];
