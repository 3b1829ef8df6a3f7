// token.valid-until-expiry draws its edge where the run measured the service's clock, not at the
// configured worst case: with --clock-tolerance 2, a service that stops honouring its tokens 2 or
// 3 s before expires_at is caught (the old edge, 3.5 s early, let both pass), while a conformant
// one, on time or with its clock off by seconds, is not. Real emulator, 8 s tokens, on a virtual
// clock the emulator and the run share: the waits for expiry are skipped, not slept, and the
// verdicts are the same every time. (check-emulator.test.ts waits for expiry in real time.)

import { describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/emulator/types.js';
import type { ProfileName } from '../../src/emulator/index.js';
import { virtualClock } from '../../src/time/clock.js';
import { checkEmulator } from '../helpers/conformance.js';

/** A service whose tokens stop working `earlyS` seconds before the expires_at it states. */
const refusesEarly =
  (earlyS: number) =>
  (base: Behaviour): Partial<Behaviour> => ({
    lifetime: (nowMs, ttlS) => {
      const promised = base.lifetime(nowMs, ttlS);
      return { ...promised, validUntilMs: promised.expiresAtS * 1000 - earlyS * 1000 };
    },
  });

const CASES: Array<{ name: string; earlyS: number; profiles?: ProfileName[]; want: 'pass' | 'fail' }> = [
  { name: 'refused 3 s early', earlyS: 3, want: 'fail' },
  { name: 'refused 2 s early', earlyS: 2, want: 'fail' },
  { name: 'on time', earlyS: 0, want: 'pass' },
  { name: 'on time, its clock 4 s ahead', earlyS: 0, profiles: ['clock-skew'], want: 'pass' },
  { name: 'refused 2 s early, its clock 4 s ahead', earlyS: 2, profiles: ['clock-skew'], want: 'fail' },
];

describe('token.valid-until-expiry with --clock-tolerance 2', () => {
  it.concurrent.each(CASES)(
    'a service with tokens $name: $want',
    async ({ earlyS, profiles, want }) => {
      const results = await checkEmulator({
        waitForExpiry: true,
        clock: virtualClock(),
        clockToleranceS: 2,
        only: ['token.valid-until-expiry', 'token.expired-validate-401'],
        overrides: earlyS > 0 ? [refusesEarly(earlyS)] : [],
        ...(profiles ? { profiles } : {}),
      });
      const r = results.find((x) => x.id === 'token.valid-until-expiry')!;
      expect(`${r.status}: ${r.message}`).toMatch(new RegExp(`^${want}: `));
      // The expiry itself is judged on the same measured clock: never a false alarm there.
      expect(results.find((x) => x.id === 'token.expired-validate-401')?.status).toBe('pass');
    },
    10_000,
  );
});
