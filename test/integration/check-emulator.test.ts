// The harness's reason to exist: the conformant emulator passes with no false alarm, and every
// deliberate fault is caught by a failing must check that cites the right spec section.

import { describe, expect, it, type ExpectStatic } from 'vitest';
import { FAULTS, type FaultName } from '../../src/emulator/index.js';
import { verdictOf } from '../../src/report/model.js';
import { checkEmulator } from '../helpers/conformance.js';
import { CAUGHT_BY } from '../helpers/fault-catchers.js';
import { EMBEDDED } from '../../src/config/resolve.js';
import { virtualClock, type Clock } from '../../src/time/clock.js';

describe('check against the conformant emulator', () => {
  // The same run twice: on a virtual clock shared with the emulator (the expiry's ~10 s and the
  // rate-limit family's waits pass in an instant) in the fast tier, and on the machine's clock in
  // the real tier (its name does not start like test/tiers.ts's fast pattern). The fast tier keeps a
  // real expiry through the bin in check-saturated.test.ts (stress-ng) and across toxiproxy in
  // network.test.ts.
  async function passesEveryCheck(clock?: Clock): Promise<void> {
    const results = await checkEmulator({ waitForExpiry: true, ...(clock ? { clock } : {}) });
    const notPassed = results.filter((r) => r.status !== 'pass');
    // The ledger check is the only one that cannot apply to a fresh emulator.
    expect(notPassed.map((r) => `${r.id}: ${r.status}: ${r.message}`)).toEqual([
      expect.stringMatching(/^token\.ledger: skip: /),
    ]);
    expect(verdictOf(results, null)).toBe('pass');
    expect(results.length).toBeGreaterThanOrEqual(35);
  }

  it('passes every check, waiting for an expiry on a virtual clock, with no failure, warning or error', () =>
    passesEveryCheck(virtualClock()));

  it("on the machine's clock, passes every check, waiting for a real expiry, with no failure, warning or error", () =>
    passesEveryCheck());
});

describe('check against each fault', () => {
  it('has a catching check for every fault in the catalogue', () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual(FAULTS.map((f) => f.name).sort());
  });

  it.for(FAULTS.map((f) => [f.name, f.spec] as const))('%s (breaks %s) fails the verdict', async ([name], { expect }) =>
    expectCaught(name, expect),
  );

  async function expectCaught(name: FaultName, expect: ExpectStatic): Promise<void> {
    const want = CAUGHT_BY[name];
    const untested: string[] = [];
    // A rate-limit check paces its burst and waits out the limit (15 s where it never lifts) on the
    // clock it is given, and a fault seen only after a token's expiry waits that out (about 9 s): on
    // one virtual clock with the emulator those waits pass in an instant, and the bucket sees the
    // same pace (13-15 s → about 1 s a fault). The real waits stay covered: the conformant run
    // above (a real expiry), the real tier's never-lifts test below, and cutover-faults' rows of the
    // same faults.
    const virtual = want.spanning === true || want.expiry === true || want.check.startsWith('ratelimit.');
    // Only the check that must catch it: the whole catalogue per fault took three minutes, and the
    // conformant run above proves the rest stay quiet without a fault.
    const results = await checkEmulator({
      faults: [name],
      waitForExpiry: want.expiry === true,
      profiles: want.profiles ?? [],
      untested,
      only: [want.check, ...(want.spanning ? ['ratelimit.*'] : [])],
      ...(virtual ? { clock: virtualClock() } : {}),
    });
    const caught = results.find((r) => r.id === want.check);
    expect(caught, `${want.check} ran`).toBeDefined();
    expect(`${caught!.status}: ${caught!.message}`).toMatch(want.notTested ? /^skip: not tested: / : /^fail: /);
    if (want.notTested) expect(caught!.message).toMatch(want.notTested);
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
