// The profiles in groups that set nothing twice, so that one emulator can show several of them at
// once as a real service does (a JWT issuer behind an HTTP/2 gateway whose clock is a few seconds
// off). The suite (test/integration/profiles.test.ts) and the false-alarm bench run `run` once per
// group rather than once per profile: a k6 run per profile made the suite twenty minutes longer.

import type { ProfileName } from './index.js';

/**
 * Profiles left out of the groups, with why. Kong's per-unit fields: `ratelimit` sizes the emulator
 * behind them in 35 s, past the 30 s probe of `run`, which then ends "not tested" (exit 1) against
 * a conformant service: an open defect of issue 35, kept visible here rather than in a group that
 * fails on it. test/emulator/stacked-limiter.test.ts and test/ratelimit/announced-unproven.test.ts
 * cover what the profile announces.
 */
export const NOT_IN_A_GROUP: Readonly<Partial<Record<ProfileName, string>>> = {
  'ratelimit-headers-kong': "run's 30 s probe does not size a limit announced in Kong's fields (35 s in isolation)",
};

export const PROFILE_GROUPS: ReadonlyArray<readonly ProfileName[]> = [
  ['http2', 'extra-fields', 'jwt', 'health-iso8601', 'clock-skew', 'ratelimit-headers'],
  ['compression', 'oauth-error-fields', 'health-http-date', 'idle-close', 'intermediate-ca', 'clock-skew-behind'],
  ['latency', 'health-clf', 'silent-close', 'business-rejects-payload'],
  ['connection-close', 'slow-business'],
];
