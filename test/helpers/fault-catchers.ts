// Which must check catches each emulator fault, and the section it must cite (with the profile a
// fault needs to mean anything: a JWT fault on a service of opaque tokens changes nothing). Shared
// by the fault matrix of `check` (test/integration/check-emulator.test.ts) and of `cutover`
// (test/cli/cutover-faults.test.ts).

import type { FaultName, ProfileName } from '../../src/emulator/index.js';

// `notTested`: the fault cannot be told from a conformant service by what the run observes, so
// the check says "not tested" (its message matches this) and the run fails on that (exit 1), never
// with a fail pinned on the service.
// `spanning`: the fault shows only between calls over a second apart, which a check takes from the
// run's length instead of waiting: the rate-limit checks run too and give it that span, on one
// virtual clock with the emulator (their recovery waits pass in an instant).
export const CAUGHT_BY: Record<
  FaultName,
  { check: string; spec: string; expiry?: boolean; profiles?: ProfileName[]; notTested?: RegExp; spanning?: true }
> = {
  'token-rotates': { check: 'token.same-before-expiry', spec: '4.1' },
  'expired-token-accepted': { check: 'token.expired-validate-401', spec: '4.3', expiry: true },
  'forbidden-instead-of-unauthorized': { check: 'token.bad-secret-401', spec: '7' },
  'wrong-error-body': { check: 'token.bad-client-id-401', spec: '7' },
  'wrong-token-type': { check: 'token.type-bearer', spec: '2' },
  'expires-at-ms': { check: 'token.expires-at-epoch-seconds', spec: '5.4' },
  'wrong-lifetime': { check: 'token.lifetime', spec: '5.4' },
  'tls12-accepted': { check: 'tls.legacy-versions-refused', spec: '5.8' },
  'ccm-suite-accepted': { check: 'tls.other-suites-refused', spec: '5.8' },
  'chacha-refused': { check: 'tls.allowed-suites-accepted', spec: '5.8' },
  'no-tls13': { check: 'tls.allowed-suites-accepted', spec: '5.8' },
  'unavailable-instead-of-429': { check: 'ratelimit.limit-enforced', spec: '7' },
  'health-check-json': { check: 'health.plain-text', spec: '4.2' },
  'validate-200-when-expired': { check: 'token.expired-validate-401', spec: '4.3', expiry: true },
  'business-open-without-token': { check: 'business.missing-token-401', spec: '4.4' },
  'shared-credentials': { check: 'env.credentials-isolated', spec: '5.6' },
  'concurrent-mint': { check: 'token.concurrent-issue-one-token', spec: '4.1' },
  'expires-early': { check: 'token.valid-until-expiry', spec: '3', expiry: true },
  'secret-not-checked': { check: 'token.bad-secret-401', spec: '4.1' },
  'refusal-carries-token': { check: 'token.bad-secret-401', spec: '4.1' },
  'lenient-token-body': { check: 'token.malformed-body-refused', spec: '4.1' },
  'tokens-require-authorization': { check: 'token.no-authorization-needed', spec: '4.1' },
  'health-check-needs-auth': { check: 'health.no-credentials', spec: '4.2' },
  'health-check-no-timestamp': { check: 'health.timestamp', spec: '4.2' },
  'validate-wrong-shape': { check: 'validate.valid-token', spec: '4.3' },
  'business-accepts-any-token': { check: 'business.invalid-token-401', spec: '4.4' },
  'plain-http-accepted': { check: 'tls.no-plain-http', spec: '5.8' },
  'expired-token-reissued': { check: 'token.new-after-expiry', spec: '3', expiry: true },
  'sliding-expiry': { check: 'token.same-before-expiry', spec: '3', spanning: true },
  // No limit at all looks exactly like a limit above the probe's ceiling (max_rps): §8 says a limit
  // exists, not where, so "none met" is what the harness could not find, not the service's failure.
  // What it says is that, not that the probe fell short of its pace (a busy machine's real-time burst).
  'rate-limit-off': {
    check: 'ratelimit.limit-enforced',
    spec: '8',
    notTested: /^not tested: no limit met at ≤ \d+ requests\/s .*raise rate_limit\.max_rps/s,
  },
  'error-body-not-json': { check: 'token.bad-secret-401', spec: '7' },
  'expires-at-string': { check: 'token.expires-at-epoch-seconds', spec: '2' },
  'rate-limit-never-lifts': { check: 'ratelimit.recovers', spec: '7' },
  'malformed-body-token': { check: 'token.malformed-body-refused', spec: '4.1' },
  'reflects-request': { check: 'token.bad-client-id-401', spec: '4.1' },
  'token-in-headers': { check: 'token.bad-secret-401', spec: '4.1' },
  'secret-in-error': { check: 'token.bad-secret-401', spec: '4.1' },
  'accepts-same-length-token': { check: 'validate.garbage-token-401', spec: '4.3' },
  'token-prefix-compare': { check: 'validate.garbage-token-401', spec: '4.3' },
  'jwt-signature-not-checked': { check: 'validate.garbage-token-401', spec: '4.3', profiles: ['jwt'] },
  'refusal-token-renamed': { check: 'token.bad-secret-401', spec: '4.1' },
  'secret-hex-in-error': { check: 'token.bad-secret-401', spec: '4.1' },
  'refusal-token-split': { check: 'token.bad-secret-401', spec: '4.1' },
  'secret-upper-in-error': { check: 'token.bad-secret-401', spec: '4.1' },
  'validate-valid-string': { check: 'validate.valid-token', spec: '4.3' },
  'expired-grace-period': { check: 'token.expired-validate-401', spec: '4.3', expiry: true },
};
