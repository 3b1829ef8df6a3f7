// The emulator's token bucket (50/s, burst 50) on loopback, the probe's process stalling 50–300 ms
// at random, on the virtual clock: how `run`'s probe meets the emulator in the heavy phase of the
// real tier, k6 and whole CLI runs sharing two cores with it. There the run of a conformant profile
// ended NOT TESTED twice: "the limiter looks like a sliding window but its parameters were not
// pinned down" (CI land90 and land94, 1-2 Dec 2026).
//
// Two readings went wrong, both of the probe's own lateness. A stall right after a drain held the
// first ping back 270 ms; it passed, and the recovery it timed, 5.6 refills long, read as a
// smooth window's wait (seed 57): the recovery now counts without what the ping went out late
// (identify.ts shapeOf, ping.ts overdueMs). And a lean window offering 3 % above the rate kept
// only 85 % of its pace between stalls (a stalled sender starts its schedule again rather than
// catching up): the bucket saved what each stall left and was never full, so the window read the
// rate off a few points, to ±5 %: "not identified" (seeds 3, 13, 20, ...). A quiet lean window now
// raises its offer by what its sender failed to keep (stream-reducer.ts keptPace).

import { describe, expect, it } from 'vitest';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { rateOutcome, type RateOutcome } from './support.js';

const EMULATOR: LimiterModel = { kind: 'bucket', rate_rps: 50, burst: 50 };

type Outcome = RateOutcome | 'not identified' | 'another kind';

async function sweep(
  everyMs: number,
  world?: {
    truth: LimiterModel;
    seeds: number;
    network?: { oneWayMs: number; jitterMs: number };
    /** The limiter's process alone stalls, half to whole of this many ms, instead of the probe's. */
    limiterAloneMs?: number;
  },
) {
  const counts: Record<Outcome, number> = {
    'within 2 %': 0,
    'within its precision': 0,
    'below, past its precision': 0,
    'above, past its precision': 0,
    'not identified': 0,
    'another kind': 0,
  };
  const others: string[] = [];
  const truth = world?.truth ?? EMULATOR;
  const trueRps = truth.kind === 'bucket' ? truth.rate_rps : NaN;
  for (let seed = 1; seed <= (world?.seeds ?? 60); seed++) {
    const e = await discoverVirtual({
      limiter: () => fromModel(truth),
      status: 429,
      stalls: world?.limiterAloneMs
        ? {
            everyMs,
            minMs: world.limiterAloneMs / 2,
            maxMs: world.limiterAloneMs,
            seed: seed + 100,
            limiter: true,
            probe: false,
          }
        : { everyMs, minMs: 50, maxMs: 300, seed: seed + 7000 },
      ...(world?.network ? { network: { ...world.network, seed } } : {}),
    });
    const rps = e.sustained_rps;
    const outcome: Outcome =
      e.limiter === null
        ? 'not identified'
        : e.limiter.kind !== 'bucket' || rps === null
          ? 'another kind'
          : rateOutcome(rps, trueRps, e.sustained_precision);
    counts[outcome]++;
    if (outcome === 'another kind' || outcome === 'not identified')
      others.push(`seed ${seed}: ${JSON.stringify(e.limiter)} ${e.notes.join('; ').slice(0, 300)}`);
  }
  return { counts, others: others.join('\n') };
}

describe("the emulator's bucket 50/s on loopback, the probe stalling 50-300 ms at random, 60 seeds", () => {
  it.each([
    {
      every: 'about every second',
      everyMs: 1000,
      // Before: 47 within 2 %, 7 below, 6 not identified (one of them a sliding window's shape).
      // Then 54 within 2 % and 6 below, 48.4-49 req/s, stated "±1-2 %" (past it), until the points
      // were timed by their refusals (estimators.ts segmentsOf).
      expected: {
        'within 2 %': 60,
        'within its precision': 0,
        'below, past its precision': 0,
        'above, past its precision': 0,
        'not identified': 0,
        'another kind': 0,
      },
    },
    {
      every: 'about every 300 ms (stalled a third of the time)',
      everyMs: 300,
      // Before: 23 within 2 %, 12 below (48-49 req/s), 25 not identified. Then 46 within 2 %, 13
      // below (48-49 req/s, stated "±1-2.8 %"), 1 not identified, until the points were timed by
      // their refusals; now two read 51.02, 2.04 % over, within their stated ±3 % and ±3.7 %.
      expected: {
        'within 2 %': 57,
        'within its precision': 2,
        'below, past its precision': 0,
        'above, past its precision': 0,
        'not identified': 1,
        'another kind': 0,
      },
    },
  ])(
    'stalls $every: a bucket, never off past its stated precision, never a window',
    async ({ everyMs, expected }) => {
      const { counts, others } = await sweep(everyMs);
      expect(counts, others).toEqual(expected);
    },
    60_000,
  );
});

// golang.org/x/time/rate NewLimiter(50, 10) across toxiproxy in the precise phase read as "a
// resetting window ... not pinned down" (CI land92, land96, land97): its burst refills in 200 ms, so
// a comeback found a round trip late (the first ping waits for the drain's answers) let a clump as
// large as the drain through at once, a window's mark. The drain's tail had let one request in
// three or four through all along, as a bucket refilling does and a window shut until its edge
// does not (probe/drain-tail.ts tailSingles): such a tail now rules out the window's reading.
describe('golang.org/x/time/rate 50/s, burst 10, across 50 ± 10 ms, the probe stalling 50-300 ms about every second, 30 seeds', () => {
  it('a bucket, never off past its stated precision, never a window (before: 1 not identified, seed 11)', async () => {
    const { counts, others } = await sweep(1000, {
      truth: { kind: 'bucket', rate_rps: 50, burst: 10 },
      network: { oneWayMs: 50, jitterMs: 10 },
      seeds: 30,
    });
    // Before the points were timed by their refusals: 25 within 2 %, 5 below.
    expect(counts, others).toEqual({
      'within 2 %': 30,
      'within its precision': 0,
      'below, past its precision': 0,
      'above, past its precision': 0,
      'not identified': 0,
      'another kind': 0,
    });
  }, 60_000);
});

// The emulator in a busy test process, the CLI probing it from its own (cutover.test's pairs): the
// limiter's process alone stalls, up to 1.5 s, while the probe keeps its pace. The drain's requests
// sent meanwhile reach the bucket at the stall's end all at once and take what it saved; the first
// refusal among them was sent early in the stall, so the comeback timed from its send read as a
// smooth window's wait, "nothing passed for 1.16 s, then one request every 23 ms" (the emulator's
// 50/s in CI 55a; 20/s, 1.41 s in 54f): NOT TESTED. The recovery now counts from as late as the
// refusal's answer allows, past the usual trips answered before it was sent (identify.ts
// shutAtLeastMs). Before: each rate lost 2 of 30 seeds to a window's shape at the shorter stalls
// and 1 at the longer (the one left at 50/s, 1.5 s, is that seed).
describe('the emulator bucket, its process alone stalling half to whole of 0.3 s or 1.5 s about every 2 s, 30 seeds', () => {
  it.each([
    { rate: 20, stallMs: 300, within2: 30, withinPrecision: 0, notIdentified: 0 },
    { rate: 20, stallMs: 1500, within2: 28, withinPrecision: 1, notIdentified: 1 },
    { rate: 50, stallMs: 300, within2: 30, withinPrecision: 0, notIdentified: 0 },
    // Seed 18: stalled more than half the time, the answers before the refusal were late as well,
    // so its own lateness was usual; the window's shape stood, and nothing was sized from it.
    { rate: 50, stallMs: 1500, within2: 29, withinPrecision: 0, notIdentified: 1 },
  ])(
    'bucket $rate/s, stalls up to $stallMs ms: a bucket within its stated precision, never a window',
    async ({ rate, stallMs, within2, withinPrecision, notIdentified }) => {
      const { counts, others } = await sweep(2000, {
        truth: { kind: 'bucket', rate_rps: rate, burst: rate },
        seeds: 30,
        limiterAloneMs: stallMs,
      });
      expect(counts, others).toEqual({
        'within 2 %': within2,
        'within its precision': withinPrecision,
        'below, past its precision': 0,
        'above, past its precision': 0,
        'not identified': notIdentified,
        'another kind': 0,
      });
    },
    60_000,
  );
});
