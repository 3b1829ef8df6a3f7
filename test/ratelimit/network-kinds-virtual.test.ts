// The kinds network-virtual.test.ts does not cover, across 50 ± 10 ms each way on the virtual
// clock (virtual-limit.ts `network`, as toxiproxy's latency toxic does in
// test/integration/ratelimit-network-kinds.test.ts): go-chi/httprate's sliding-window counter
// (its own headers), golang.org/x/time/rate's bucket, HAProxy's 10 s counter counting admitted
// requests, and a 10 s counter whose 429s announce nothing. Ten jitter seeds each (the counters'
// windows also at ten phases against the probe): every reading the right kind within 2 %, or
// "not identified" with the reason; never above the true rate. The counts are kept so that a
// change that moves a seed from one outcome to another shows.
//
// Before (27 Nov 2026): a counter's ramp was timed by pings that each waited for the answer to the
// one before, a round trip apart, so its lattice points were known only to ~100 ms and the window
// to ±1.5 %: HAProxy 300 per 10 s 0 of 10 sized, the silent counter 0, httprate 200 per 10 s 1.
// And the same pings, a round trip apart, made a counter shut until its next edge look like a
// bucket refilling once a round trip: httprate 50 per 1 s read as a bucket 2–17 % slow at 10 of 10
// seeds (real, through toxiproxy: 3 of 3), the silent counter at 2 (19 % and 54 % slow), httprate
// 200 per 10 s at 1 (34 % slow); refused after the drain for longer than such a bucket refills,
// none is a bucket (probe/drain-tail.ts). That left httprate 50 per 1 s a bucket 1–3 % slow at 5 of
// 10 seeds, not identified at 5: where its next edge fell within the drain's round trip, its tail
// was too short to tell. Its X-RateLimit-Reset tells, on every answer: where the announced end moves
// on is an edge, and a drain from idle a third into a window is shut until the next (probe/reset-ticks.ts):
// sized at 10 of 10. httprate 75 per 1.5 s, its ends floored to seconds stepping by 1 and 2 s, read
// as 75 per 1 s by those ticks (50 % fast) or as a bucket 3–16 % slow where they could not time it:
// an end announced more than a window ahead rules the first out, drains from idle the second.

import { describe, expect, it } from 'vitest';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { relativeError, slidingCounter } from './support.js';
import {
  discoverVirtual,
  fromModel,
  gcra,
  haproxyRate,
  httprateFront,
  type Limiter,
  type VirtualEndpoint,
} from './virtual-limit.js';

const SEEDS = 10;

/** A wall clock's epoch for the fronts that announce epoch seconds: a whole second, 27 Nov 2026. */
const EPOCH_MS = 1_795_000_000_000;

type Outcome = 'sized' | 'not identified' | 'other';

const counter = slidingCounter;

/** go-chi/httprate with its own headers, its windows started `stepMs` × the seed before the probe (modulo a window). */
const httprateAt =
  (limit: number, windowS: number, stepMs: number) =>
  (seed: number): Omit<VirtualEndpoint, 'network'> => ({
    limiter: () => httprateFront(limit, windowS, (seed * stepMs) % (windowS * 1000)),
    status: 429,
    announces: 'retry-after',
  });

/** go-chi/httprate as the real one announces (epoch seconds), its windows started `startedBeforeMs` before the probe. */
const httprateEpoch = (limit: number, windowS: number, startedBeforeMs: number): Omit<VirtualEndpoint, 'network'> => ({
  limiter: () => httprateFront(limit, windowS, startedBeforeMs, EPOCH_MS),
  status: 429,
  announces: 'retry-after',
  epochMs: EPOCH_MS,
});

/** The row of go-chi/httprate `limit` per `windowS`, its windows `stepMs` × the seed before the probe. */
const httprateRow = (limit: number, windowS: number, stepMs: number, expected: Record<Outcome, number>) => ({
  name: `go-chi/httprate ${limit} per ${windowS} s, its windows a ${stepMs} ms step apart`,
  truth: counter(limit, windowS),
  endpoint: httprateAt(limit, windowS, stepMs),
  capS: 60,
  expected,
});

/**
 * x/time/rate's bucket with an X-RateLimit-Reset of the Unix second it is full again, rounded down
 * (as httprate rounds its window's end): on a bucket kept saturated it moves on once a second too,
 * so that alone must never make it a counter (probe/reset-ticks.ts drains it between two).
 */
function bucketAnnouncingFull(rps: number, burst: number): Limiter {
  const emissionMs = 1000 / rps;
  let theoretical = 0;
  const decide: Limiter = (now) => {
    const next = Math.max(theoretical, now) + emissionMs;
    if (next - now > burst * emissionMs) return next - now - burst * emissionMs;
    theoretical = next;
    return undefined;
  };
  decide.announce = (now) => ({
    'x-ratelimit-limit': String(burst),
    'x-ratelimit-remaining': String(Math.floor(burst - Math.max(0, theoretical - now) / emissionMs)),
    'x-ratelimit-reset': Math.max(0, Math.floor(Math.max(theoretical, now) / 1000) - now / 1000).toFixed(3),
  });
  return decide;
}

/** Right kind and within 2 % of the true rate: sized; no limiter: not identified; anything else: other. */
function outcome(e: Estimate, truth: LimiterModel): Outcome {
  if (e.limiter === null) return 'not identified';
  return e.limiter.kind === truth.kind && relativeError(e.sustained_rps, sustainedRate(truth)) <= 0.02
    ? 'sized'
    : 'other';
}

const cases: Array<{
  name: string;
  truth: LimiterModel;
  /** The endpoint at jitter seed `seed` (a counter's windows at a phase of its own per seed). */
  endpoint: (seed: number) => Omit<VirtualEndpoint, 'network'>;
  capS: number;
  expected: Record<Outcome, number>;
}> = [
  {
    name: 'golang.org/x/time/rate NewLimiter(50, 10)',
    truth: { kind: 'bucket', rate_rps: 50, burst: 10 },
    endpoint: () => ({ limiter: () => gcra(50, 10), status: 429 }),
    capS: 60,
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  {
    name: 'that bucket announcing when it is full, in whole seconds',
    truth: { kind: 'bucket', rate_rps: 50, burst: 10 },
    endpoint: () => ({ limiter: () => bucketAnnouncingFull(50, 10), status: 429 }),
    capS: 60,
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  {
    name: 'go-chi/httprate 50 per 1 s',
    truth: counter(50, 1),
    endpoint: httprateAt(50, 1, 97),
    capS: 60,
    // Before its announced resets told it (probe/reset-ticks.ts): not identified 5, a bucket 1–3 % slow 5.
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  {
    // As real httprate announces it: epoch seconds, its window's end truncated (epochMs: a wall
    // clock), and its windows started late in a second (v0.16.1 starts them with its process),
    // ending 0.951-0.996 s past it. Only answers in a window's first 4-49 ms announce an end still
    // ahead; read clamped to 0, the rest said nothing of which window they were in (real httprate
    // through toxiproxy in the bench's network group: "announced resets not used: the announced
    // reset did not move on", then a bucket 2.6-5 % slow, 3 runs of 3). Virtually the stream sizes
    // most seeds anyway; before, seed 9 was not identified (33 s), sized 9 of 10.
    name: 'go-chi/httprate 50 per 1 s, epoch resets, its windows ending late in the second',
    truth: counter(50, 1),
    endpoint: (seed: number): Omit<VirtualEndpoint, 'network'> => ({
      limiter: () => httprateFront(50, 1, 4 + ((seed * 5) % 50), EPOCH_MS),
      status: 429,
      announces: 'retry-after',
      epochMs: EPOCH_MS,
    }),
    capS: 60,
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  {
    // A counter the stream sized (its edge trial said windows on the clock), to a window off whole
    // seconds: timed by its announced resets instead. Before: 18.18 req/s (20 per 1.1 s) at seed 3.
    name: 'go-chi/httprate 20 per 1 s',
    truth: counter(20, 1),
    endpoint: httprateAt(20, 1, 71),
    capS: 60,
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  // At seed 1 its windows end 0.903 s past the second: only answers in a window's first 0.097 s
  // announce a reset (the rest say 0), in every third window, too few for the ticks; the stream
  // read 20 per 0.94 s off 6 acceptances (±20 %), 21.28 req/s, 6 % above its rate. Now: not sized.
  httprateRow(20, 1, 97, { sized: 9, 'not identified': 1, other: 0 }),
  // Its ends, floored to seconds, step by 1 and 2 s: whole windows of 1 s to the ticks, which read
  // 75 per 1 s (75 req/s, 50 % above its rate) at seeds 1 and 8, until an answer announcing its
  // window's end more than 1 s ahead ruled that out.
  httprateRow(75, 1.5, 71, { sized: 5, 'not identified': 5, other: 0 }),
  // The ticks cannot time it: read as a bucket 10–16 % slow (42.02 and 45.07 req/s) at seeds 9
  // and 10, where its drain straddled an edge and the last window's weight came back one request
  // at a time. Drains from idle show it shut until an edge, no bucket at that rate: not identified.
  httprateRow(75, 1.5, 97, { sized: 4, 'not identified': 6, other: 0 }),
  // The same at a 971 ms step: a bucket 3–16 % slow at 5 of 10 seeds before.
  httprateRow(75, 1.5, 971, { sized: 3, 'not identified': 7, other: 0 }),
  {
    // Not identified at 6 of 10 before its ramp was timed for a service that announces its resets
    // too, and the stream's period checked against where they turn (discover.ts, reset-ticks.ts).
    name: 'go-chi/httprate 200 per 10 s',
    truth: counter(200, 10),
    endpoint: httprateAt(200, 10, 971),
    capS: 25,
    expected: { sized: 8, 'not identified': 2, other: 0 },
  },
  {
    // As the real one announces (epoch seconds): the bench's network row, not identified once in
    // five runs (27 Nov 2026) with "a window of about 7 s" read off a truncated reset. Before the
    // same change, and the ramp after a drain that straddled an edge (announced-ends.ts): 4 sized,
    // 6 not identified.
    name: 'go-chi/httprate 200 per 10 s, epoch resets',
    truth: counter(200, 10),
    endpoint: (seed: number) => httprateEpoch(200, 10, (seed * 971) % 10_000),
    capS: 25,
    expected: { sized: 9, 'not identified': 1, other: 0 },
  },
  {
    name: 'HAProxy http_req_rate(10000ms) 300, admitted counted',
    truth: counter(300, 10),
    endpoint: () => ({ limiter: () => haproxyRate(300, 10_000, false), status: 429 }),
    capS: 25,
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
  {
    name: 'a silent counter 300 per 10 s',
    truth: counter(300, 10),
    endpoint: (seed) => ({ limiter: () => fromModel(counter(300, 10, ((seed * 971) % 10_000) / 1000)), status: 429 }),
    capS: 25,
    // 27 Nov 2026: 5 sized, 4 not identified, 1 a bucket 19 % slow; since probe/bucket-ledger.ts
    // and the ramp after a staircase that saw no timer, 6 and 4; since its trickle is watched
    // (probe/trickle-watch.ts), 8 and 2, and since a ramp timed to ±1 % is claimed, 9 and 1 (the
    // phase sweep below); since each clump of the ramp ends before the next edge can come, at the
    // rate the probe really sends (probe/counter-ramp.ts), 10.
    expected: { sized: 10, 'not identified': 0, other: 0 },
  },
];

describe('across 50 ± 10 ms each way, on the virtual clock: the kinds beyond the emulator', () => {
  it.each(cases)('$name at ten jitter seeds', async ({ truth, endpoint, capS, expected }) => {
    const counts: Record<Outcome, number> = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const e = await discoverVirtual(
        { ...endpoint(seed), network: { oneWayMs: 50, jitterMs: 10, seed } },
        { maxDurationS: capS },
      );
      const o = outcome(e, truth);
      counts[o]++;
      rows.push(`seed ${seed}: ${o}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s, ${e.duration_s} s`);
      // Never more than the limiter admits.
      if (e.sustained_rps !== null)
        expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual(1.02 * sustainedRate(truth));
      if (o === 'not identified')
        expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not pinned down|not sized/);
    }
    expect(counts, rows.join('\n')).toEqual(expected);
  });
});

// x/time/rate NewLimiter(50, 10) with the machine up to 10 ms late, 100 jitter seeds. Across the
// network its refills bunch, it came back whole after the drain, as a window does, and twice no
// window was found: every clump from idle refused in part (a burst of 10 against clumps of 20), the
// period "not pinned down", not identified (CI s38, through toxiproxy: the same, where 23 CI runs
// before had read the bucket). Such a limit is now sized by the stream, as one of no known shape is.
describe('across 50 ± 10 ms each way, the machine 10 ms late: x/time/rate NewLimiter(50, 10) at 100 seeds', () => {
  it('is sized as the bucket it is, or not identified where the limit was never seen (1 seed)', async () => {
    const truth: LimiterModel = { kind: 'bucket', rate_rps: 50, burst: 10 };
    const counts: Record<Outcome, number> = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const e = await discoverVirtual(
        {
          limiter: () => gcra(50, 10),
          status: 429,
          network: { oneWayMs: 50, jitterMs: 10, seed },
          busy: { lateMs: 10, seed: seed + 2000 },
        },
        { maxDurationS: 60 },
      );
      const o = outcome(e, truth);
      counts[o]++;
      if (o !== 'sized') rows.push(`seed ${seed}: ${o}: ${JSON.stringify(e.limiter)} ${e.notes.join(' / ')}`);
    }
    // Before: 98 sized, 2 not identified (seeds 57 and 89).
    expect(counts, rows.join('\n')).toEqual({ sized: 99, 'not identified': 1, other: 0 });
  }, 60_000);
});

// The same bucket with the machine up to 20 ms late, as CI's two cores were beside three other
// precision runs (ci-59F: its drain went out at 54.6 req/s of the 200 planned). Its recovery clump,
// sent as slowly, barely outran the bucket's 50 a second and came back nearly whole, as a window's
// does: "not identified" at 25 of 30 seeds, with no reason a user could act on. No rule on the
// counts tells such a bucket from a window whose clump went out as slowly (tried: the clump's
// lateness added to what a limit frees meanwhile, and fixed windows and logs then read as buckets).
// So the probe says why: its drain's own pace, and that a quieter machine tells them apart
// (probe/slow-sends.ts). Never another kind; every such "not identified" says so, and the pace it
// names is the drain's, under half the planned.
describe('across 50 ± 10 ms each way, the machine 20 ms late: x/time/rate NewLimiter(50, 10) at 30 seeds', () => {
  it('is sized, or not identified naming the drain this machine sent too slowly', async () => {
    const truth: LimiterModel = { kind: 'bucket', rate_rps: 50, burst: 10 };
    const counts = { sized: 0, 'not identified, sent slowly': 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let seed = 1; seed <= 30; seed++) {
      const e = await discoverVirtual({
        limiter: () => gcra(50, 10),
        status: 429,
        network: { oneWayMs: 50, jitterMs: 10, seed },
        busy: { lateMs: 20, seed: seed + 500 },
      });
      const o = outcome(e, truth);
      const slow = e.notes.find((n) => n.includes(': the drain went out at '));
      if (slow) {
        // The pace it names is the drain's as the rate bracket reads it, under half the 200 planned.
        expect(e.rate_bracket?.high, slow).toBeLessThan(100);
        const named = Number(/: the drain went out at ([\d.]+) req\/s of the 200 planned/.exec(slow)?.[1]);
        expect(Math.abs(named - e.rate_bracket!.high), slow).toBeLessThanOrEqual(0.051);
      }
      const key = o === 'not identified' && slow ? 'not identified, sent slowly' : o;
      counts[key]++;
      if (o !== 'sized') rows.push(`seed ${seed}: ${key}: ${JSON.stringify(e.limiter)} ${e.notes.join(' / ')}`);
    }
    // Before: 3 sized, 27 not identified (25 of them "a resetting window … not pinned down" alone).
    expect(counts, rows.join('\n')).toEqual({
      sized: 3,
      'not identified, sent slowly': 25,
      'not identified': 2,
      other: 0,
    });
  }, 60_000);
});

// The silent counter at every quarter second of its window, three jitter seeds each. Before (27 Nov
// 2026, main at 88ae792): where its edge fell inside the drain (0.25–1.75 s into the probe) the
// counter freed the drained part of its window steadily, a bucket's trickle to the drain's tail
// and to the stream, and it read as a bucket 3–90 % slow (the bench's 12.3 req/s); where its edge
// came 3–6.5 s after the drain, the recovery's pings backing off reached the edge late, found a
// clump of its ramp freed at once, and the ramp was not timed after the staircase that followed:
// the period trials then had no time left. Now a bucket that no rate squares with what passed
// between refusals is ruled out (probe/bucket-ledger.ts), and the ramp is timed after a staircase
// that saw no timer: 59 sized, 41 not identified, 20 buckets -> 85, 35, 0. The drain astride an
// edge (0–2 s) was still not identified then: it trickles back like a bucket at c1 / W (c1 what it
// let through before the edge), the recovery's pings, a round trip apart, all passed and timed
// themselves (5.3 req/s where it let 14 back), and the stream under that rate saw the trickle rise
// at the next edge: the ledger ruled the bucket out, and nothing sized it. Now that trickle is
// watched, saturated, and read off its two lines (probe/trickle-lines.ts): 85 -> 105 sized, none
// misread. Its edge 4–6 s after the probe began, the ramp after the staircase was timed to ±0.55 %
// (three clumps fit), not claimed at ±0.5 %; a ramp is now claimed to ±1 %, near its long end
// (probe/counter-ramp.ts): 113. Not identified still: its edge in the first 0.25 s (the trickle too
// slow to read before the next edge), and at 1.5 s once (a rise of 4 %).
describe('across 50 ± 10 ms each way, on the virtual clock: the silent counter at every phase', () => {
  const PHASES = 40;
  const truth = counter(300, 10);
  // Late 50 ms: the machine of the real runs that read it as a bucket 6.3–9.7 req/s (round trips
  // 83–246 ms, edge 0.5 s into the probe), its drain slowed until it straddled the edge, and the
  // probe ended before the next: the bucket's refill (47 s) was never watched. Without the ledger's
  // three rules 104 of 120 misread here (20 of 120 on time); each is now not identified (with the
  // reason, or partial at the probe's time cap); sized at no phase. The trickle's watch, when its
  // pings never saturated it, leaves the stream after it only seconds: a bucket read off 3
  // acceptances (±50 %, 12 % fast) at one phase until a bucket needs its rate to ±5 % (discover.ts).
  it.each([
    { when: 'timers on time', lateMs: 0, expected: { sized: 113, 'not identified': 7, other: 0 } },
    { when: 'timers up to 50 ms late', lateMs: 50, expected: { sized: 0, 'not identified': 120, other: 0 } },
  ])(`300 per 10 s at ${PHASES} phases × 3 jitter seeds, $when: never misread`, async ({ lateMs, expected }) => {
    const counts: Record<Outcome, number> = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let p = 0; p < PHASES; p++)
      for (let seed = 1; seed <= 3; seed++) {
        const phaseS = (p * 10) / PHASES;
        const e = await discoverVirtual(
          {
            limiter: () => fromModel(counter(300, 10, phaseS)),
            status: 429,
            network: { oneWayMs: 50, jitterMs: 10, seed },
            ...(lateMs > 0 ? { busy: { lateMs, seed } } : {}),
          },
          { maxDurationS: 25 },
        );
        const o = outcome(e, truth);
        counts[o]++;
        rows.push(`${phaseS} s, seed ${seed}: ${o}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s`);
        if (o === 'not identified')
          expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not pinned down|time cap/);
      }
    expect(counts, rows.filter((r) => !r.includes(': sized:')).join('\n')).toEqual(expected);
  });
});

// go-chi/httprate 200 per 10 s announcing epoch seconds (the bench's network row) at every quarter
// second of its window, three jitter seeds each, in the bench's 25 s. Before (27 Nov 2026, main at
// e6330e8): 50 sized, 70 not identified. Where its edge came 1.5-5 s after the drain, its ramp was
// not timed (a service announcing its resets was left to the stream, whose edge trials need two
// idle windows); where its drain straddled an edge, the ramp weighed the whole drain where the
// window before the next edge held part of it. Its ramp is timed now, the stream's period checked
// against where its resets turn, and the part told by the ends its answers announced (announced-ends.ts).
// Not identified still: its edge 1.25-1.5 s into the probe, the drain's refusal just before it (one
// fewer since a ramp timed to ±1 % is claimed, probe/counter-ramp.ts), and, since a ramp's lattice
// point must be an acceptance surely after its pings' first refusal, or allows a step more or fewer
// (counter-ramp-slack-virtual.test.ts: a step miscounted read 20.1 req/s), 9003 ms at seed 2.
describe('across 50 ± 10 ms each way, on the virtual clock: httprate 200 per 10 s at every phase', () => {
  it('40 phases × 3 jitter seeds, epoch resets, 25 s each: never misread', async () => {
    const counts: Record<Outcome, number> = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    const truth = counter(200, 10);
    for (let p = 0; p < 40; p++)
      for (let seed = 1; seed <= 3; seed++) {
        const e = await discoverVirtual(
          { ...httprateEpoch(200, 10, p * 250 + 3), network: { oneWayMs: 50, jitterMs: 10, seed } },
          { maxDurationS: 25 },
        );
        const o = outcome(e, truth);
        counts[o]++;
        rows.push(`${p * 250 + 3} ms, seed ${seed}: ${o}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s`);
        if (e.sustained_rps !== null)
          expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual(1.02 * sustainedRate(truth));
      }
    expect(counts, rows.join('\n')).toEqual({ sized: 113, 'not identified': 7, other: 0 });
  });
});

// The bench's httprate 50 per 1 s row read a bucket 2.58 % slow once with no word from
// probe/reset-ticks.ts: every way it leaves the limit to the usual phases now says why as the
// probe goes (the stage log keeps it), and report.json's notes keep it too. Timers 20 ms late (a busy machine), the drain from idle
// took ~1 s instead of 0.3, past the edge its pings were to cross; the usual phases read a bucket
// 48.72 req/s, 2.56 % slow (the probe's, not the ticks' misreading: left as it was).
describe('across 50 ± 10 ms each way, on the virtual clock: announced resets left unused say why', () => {
  it.each([
    {
      name: 'that bucket announcing when it is full',
      endpoint: { limiter: () => bucketAnnouncingFull(50, 10), status: 429 },
      why: /^announced resets not used: a ping after the drain from idle at \d+\.\d{3} s passed before any was refused$/,
    },
    {
      name: 'go-chi/httprate 50 per 1 s, timers 20 ms late',
      endpoint: { ...httprateAt(50, 1, 325)(1), busy: { lateMs: 20, seed: 1 } },
      why: /^announced resets not used: the drain from idle at \d+\.\d{3} s sent until \d+\.\d{3} s: no time left for pings before \d+\.\d{3} s$/,
    },
  ])('$name', async ({ endpoint, why }) => {
    const lines: string[] = [];
    const e = await discoverVirtual(
      { ...endpoint, network: { oneWayMs: 50, jitterMs: 10, seed: 1 } },
      { progress: (line) => lines.push(line) },
    );
    expect(
      lines.filter((l) => l.startsWith('announced resets')),
      `${JSON.stringify(e.limiter)}\n${lines.join('\n')}`,
    ).toEqual([expect.stringMatching(why)]);
    // And in the report's notes, where a reading made after it is traced.
    expect(
      e.notes.filter((n) => n.startsWith('announced resets')),
      e.notes.join('\n'),
    ).toEqual([expect.stringMatching(why)]);
  });
});
