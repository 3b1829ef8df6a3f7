// The fixed window 50 per 1 s across 50 ± 10 ms each way with the probe's process stalling 100–300 ms
// about once a second, on the virtual clock (virtual-limit.ts `stalls`): the precise phase of the real
// tier runs three probes on two cores, and there test/integration/ratelimit-network.test.ts read the
// emulator's window through toxiproxy as 'token bucket 49.92 req/s, burst 38' once in three quiet runs
// (29 Nov 2026, round trips 214 ms at p95 against ~120 alone). Its windows sit anywhere on the probe's
// clock (phase_s from the seed), as the emulator's on the wall clock do.
//
// Two readings went wrong. When the window's edge came while the drain's refused tail was still in
// flight, the first ping (sent once their answers were in, or after a stall) found the window back
// with no ping refused: timed from the drain's first refusal, two round trips and a stall looked like
// what a smooth window frees meanwhile, so its whole 50 back at once read as a bucket's shape, and a
// second drain read the same (seed 91, as on CI: 'burst: 50 requests passed back-to-back ...; 38 after
// taking away what the limit refilled meanwhile'). The last refusal answered before that ping now
// counts (recover.ts lastSeenShutMs). And the bucket path's last guard, the drain's tail refused for
// longer than a refill, placed every request by the spread of all the round trips: one answer a stall
// handed 300 ms late made it say nothing. Any two refusals with nothing let through between them,
// each placed by its own round trip, now rule a bucket out (drain-tail.ts refusalGapRulesOutBucket):
// seed 61, still a bucket's shape from both drains, is not identified rather than a bucket.
// Before: 93 fixed windows, 5 buckets (seeds 13, 61, 76, 91, 98), 2 not identified; with the limiter
// stalled alike too, 79, 8 buckets and 13.

import { describe, expect, it } from 'vitest';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel, type VirtualEndpoint } from './virtual-limit.js';
import { clockWindow, pastStatedPrecision } from './support.js';

const NETWORK = { oneWayMs: 50, jitterMs: 10 };
/** Stalls of 100–300 ms about once a second, each seed its own. */
const stalls = (seed: number, limiter: boolean): NonNullable<VirtualEndpoint['stalls']> => ({
  everyMs: 1000,
  minMs: 100,
  maxMs: 300,
  seed: seed + 7000,
  limiter,
});

const fixedAt = (phaseS: number): LimiterModel => clockWindow(50, 1, phaseS);

// The kind is what this file is about: with stalls this long, a window read right is not always
// within 2 % (seed 2: opened by the first request, 0.921 s), as before; only its kind is counted.
type Outcome = 'fixed window' | 'not identified' | 'bucket' | 'another kind';

/** The fixed window read at seeds 1 to 100 with stalls: outcomes counted, every other reading named. */
async function stalledSweep(limiterStalls: boolean) {
  const counts: Record<Outcome, number> = { 'fixed window': 0, 'not identified': 0, bucket: 0, 'another kind': 0 };
  const others: string[] = [];
  const past: string[] = [];
  for (let seed = 1; seed <= 100; seed++) {
    const truth = fixedAt((seed * 0.137) % 1);
    const e = await discoverVirtual({
      limiter: () => fromModel(truth),
      status: 429,
      network: { ...NETWORK, seed },
      stalls: stalls(seed, limiterStalls),
    });
    const outcome: Outcome =
      e.limiter === null
        ? 'not identified'
        : e.limiter.kind === 'fixed-window'
          ? 'fixed window'
          : e.limiter.kind === 'bucket'
            ? 'bucket'
            : 'another kind';
    counts[outcome]++;
    if (outcome === 'bucket' || outcome === 'another kind')
      others.push(`seed ${seed}: ${JSON.stringify(e.limiter)} ${e.limiter_evidence.join('; ')}`);
    const off = pastStatedPrecision(e, truth);
    if (off) past.push(`seed ${seed}: ${off}`);
  }
  return { counts, others: others.join('\n'), past };
}

describe('the fixed window 50 per 1 s across 50 ± 10 ms each way, the probe stalling 100-300 ms about every second, 100 seeds', () => {
  it.each([
    {
      who: 'the probe',
      limiterStalls: false,
      // Edges read within the arrivals' noise (window-edges.ts seenEdges): 95 -> 96 fixed windows, and
      // of them 2 -> 1 more than 2 % off (seed 2's 0.921 s opened by the first request is gone; 93's 1.052 s stays).
      // 96 -> 89 since an edge trial the stalls kept from running no longer stands for "on the clock"
      // (a sliding log's edges fit lattices as well, and were read as fixed windows: network-busy-log-virtual.test.ts);
      // 7 of them are now not identified, and the stage searches their rate with k6 rounds.
      // 89 -> 91 since the edge walk's second edge keeps short of the edge after next (window-edges.ts withinNextWindow).
      // 91 -> 90 since an edge whose window refused part of its fill keeps its lower end moved back
      // while the walk pins the lattice (window-edges.ts reboundEdges): a window more walked.
      expected: { 'fixed window': 90, 'not identified': 10, bucket: 0, 'another kind': 0 },
    },
    {
      who: 'the probe and the limiter',
      limiterStalls: true,
      // Within the arrivals' noise: 83 -> 84, and of them 6 -> 4 more than 2 % off (seeds 48's 0.857 s and 49's 1.021 s gone).
      // 84 -> 85 with the edge trial's bursts planned at the pace they were sent and a burst across
      // the clock's edge telling a window on it, less those whose trial never ran (as above).
      // 85 -> 86 with the edge walk's second edge kept short of the edge after next (as above).
      // 86 -> 91 with a crossed fill's edge moved back while the walk pins the lattice (as above).
      expected: { 'fixed window': 91, 'not identified': 9, bucket: 0, 'another kind': 0 },
    },
  ])(
    '$who stalled: a fixed window or not identified, never a bucket, every reading within the precision it states',
    async ({ limiterStalls, expected }) => {
      const { counts, others, past } = await stalledSweep(limiterStalls);
      expect(counts, others).toEqual(expected);
      // Before window-edges.ts reboundEdges, with the limiter stalling too: 5 fixed windows 3–15 % off
      // with ±1 % stated (48.4–57.41 req/s: seeds 28, 35, 51, 86, 91), their lattices pinned on a
      // lower end a crossed fill's tail had set.
      expect(past).toEqual([]);
    },
    60_000,
  );

  // Seed 91 is the CI run's reading to the figure; seed 61 came back whole a stall after two drains.
  it.each([91, 61])('seed %i: no bucket claimed', async (seed) => {
    const e = await discoverVirtual({
      limiter: () => fromModel(fixedAt((seed * 0.137) % 1)),
      status: 429,
      network: { ...NETWORK, seed },
      stalls: stalls(seed, false),
    });
    expect(e.limiter?.kind ?? null, JSON.stringify({ limiter: e.limiter, evidence: e.limiter_evidence })).not.toBe(
      'bucket',
    );
    if (seed === 91) expect(e.limiter?.kind, JSON.stringify(e.notes)).toBe('fixed-window');
  });
});

// A bucket behind the same stalls keeps being read as one: the refusals of a bucket are never two
// refills apart with nothing let through between them, however late a stall hands their answers.
describe('a token bucket 50/s, burst 50, with the same stalls, 60 seeds', () => {
  // 56 -> 57 buckets since the trickle watch ends once the machine's own pace holds its pings back
  // unsaturated (probe/trickle-watch.ts): seed 18's stream began at the rate that passed.
  // 57 -> 60 since a quiet lean window makes up for the pace its stalled sender failed to keep
  // (stream-reducer.ts keptPace): the three were rates read to ±5 % off a few points.
  it('is read as a bucket as before (none not identified; 4 before the refusal-gap check, 3 before keptPace)', async () => {
    const truth: LimiterModel = { kind: 'bucket', rate_rps: 50, burst: 50 };
    const counts = { bucket: 0, 'not identified': 0, 'another kind': 0 };
    for (let seed = 1; seed <= 60; seed++) {
      const e = await discoverVirtual({
        limiter: () => fromModel(truth),
        status: 429,
        network: { ...NETWORK, seed },
        stalls: stalls(seed, false),
      });
      counts[e.limiter === null ? 'not identified' : e.limiter.kind === 'bucket' ? 'bucket' : 'another kind']++;
    }
    expect(counts).toEqual({ bucket: 60, 'not identified': 0, 'another kind': 0 });
  }, 60_000);
});
