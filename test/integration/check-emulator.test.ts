// The harness's reason to exist: the conformant emulator passes with no false alarm, and every
// deliberate fault is caught by a failing must check that cites the right spec section.

import { describe, expect, it, type ExpectStatic } from 'vitest';
import { FAULTS, type FaultName, type ProfileName } from '../../src/emulator/index.js';
import { verdictOf } from '../../src/report/model.js';
import { checkEmulator } from '../helpers/conformance.js';
import { EMBEDDED } from '../../src/config/resolve.js';
import { virtualClock } from '../../src/time/clock.js';

describe('check against the conformant emulator', () => {
  it('passes every check, waiting for a real expiry, with no failure, warning or error', async () => {
    const results = await checkEmulator({ waitForExpiry: true });
    const notPassed = results.filter((r) => r.status !== 'pass');
    // The ledger check is the only one that cannot apply to a fresh emulator.
    expect(notPassed.map((r) => `${r.id}: ${r.status}: ${r.message}`)).toEqual([
      expect.stringMatching(/^token\.ledger: skip: /),
    ]);
    expect(verdictOf(results, null)).toBe('pass');
    expect(results.length).toBeGreaterThanOrEqual(35);
  });
});

// fault → the must check that has to fail, and the section it must cite (with the profile a
// fault needs to mean anything: a JWT fault on a service of opaque tokens changes nothing).
// `notTested`: the fault cannot be told from a conformant service by what the run observes, so
// the check says "not tested" and the run fails on that (exit 1), never with a fail pinned on the service.
// `spanning`: the fault shows only between calls over a second apart, which a check takes from the
// run's length instead of waiting: the rate-limit checks run too and give it that span, on one
// virtual clock with the emulator (their recovery waits pass in an instant).
const CAUGHT_BY: Record<
  FaultName,
  { check: string; spec: string; expiry?: boolean; profiles?: ProfileName[]; notTested?: true; spanning?: true }
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
  'rate-limit-off': { check: 'ratelimit.limit-enforced', spec: '8', notTested: true },
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
};

describe('check against each fault', () => {
  it('has a catching check for every fault in the catalogue', () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  // The faults seen only after a real token expiry spend their time waiting on timers, about 9 s
  // each: they wait side by side (vitest's `concurrent`, each with its own emulator on port 0), the
  // rest one after another.
  const faults = (expiry: boolean) =>
    FAULTS.filter((f) => (CAUGHT_BY[f.name].expiry === true) === expiry).map((f) => [f.name, f.spec] as const);
  it.concurrent.for(faults(true))('%s (breaks %s) fails the verdict', async ([name], { expect }) =>
    expectCaught(name, expect),
  );
  it.for(faults(false))('%s (breaks %s) fails the verdict', async ([name], { expect }) => expectCaught(name, expect));

  async function expectCaught(name: FaultName, expect: ExpectStatic): Promise<void> {
    const want = CAUGHT_BY[name];
    const untested: string[] = [];
    // Only the check that must catch it: the whole catalogue per fault took three minutes, and the
    // conformant run above proves the rest stay quiet without a fault.
    const results = await checkEmulator({
      faults: [name],
      waitForExpiry: want.expiry === true,
      profiles: want.profiles ?? [],
      untested,
      only: [want.check, ...(want.spanning ? ['ratelimit.*'] : [])],
      ...(want.spanning ? { clock: virtualClock() } : {}),
    });
    const caught = results.find((r) => r.id === want.check);
    expect(caught, `${want.check} ran`).toBeDefined();
    expect(`${caught!.status}: ${caught!.message}`).toMatch(want.notTested ? /^skip: not tested: / : /^fail: /);
    expect(untested.map((line) => line.split(':')[0])).toEqual(want.notTested ? [want.check] : []);
    expect(caught!.level).toBe('must');
    expect(caught!.spec.split(/,\s*/)).toContain(want.spec);
    expect(
      verdictOf(
        results,
        null,
        untested.map((reason) => ({ stage: 'checks', reason })),
      ),
    ).toBe('fail');
  }
});

describe('a rate limit that never lifts', () => {
  it('is judged with evidence, not left as an error: no ratelimit check errors, recovery fails with the last 429', async () => {
    const results = await checkEmulator({ faults: ['rate-limit-never-lifts'], only: ['ratelimit.*'], tokenTtlS: 4 });
    const rate = results.filter((r) => r.id.startsWith('ratelimit.'));
    expect(rate.map((r) => `${r.id}: ${r.status}`)).not.toContainEqual(expect.stringMatching(/: error$/));
    const recovers = rate.find((r) => r.id === 'ratelimit.recovers')!;
    expect(recovers.status).toBe('fail');
    expect(recovers.evidence?.[0]?.status).toBe(429);
  });
});

// The embedded run's short lifetime leaves less room between "conformant, judged with its
// uncertainty" and "half the promised lifetime": both sides of that line, at that lifetime.
describe("time edges at the embedded run's token lifetime", () => {
  it.each([
    [[], 'pass'],
    [['wrong-lifetime'], 'fail'],
  ] as const)('token.lifetime with faults %j: %s', async (faults, want) => {
    const results = await checkEmulator({
      faults: [...faults],
      tokenTtlS: EMBEDDED.tokenLifetimeS,
      only: ['token.lifetime'],
    });
    expect(results.map((r) => `${r.id}: ${r.status}`)).toEqual([`token.lifetime: ${want}`]);
  });
});
