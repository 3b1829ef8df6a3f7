// The whole probe (discover) across a network ~100 ms away, on the virtual clock: every request
// reaches the limiter 50 ± 10 ms after it was sent and its answer comes back as late again
// (virtual-limit.ts `network`, as toxiproxy's latency toxic does on loopback in
// test/integration/ratelimit-network.test.ts), so requests sent 5 ms apart arrive out of order and a
// round trip's worth are still on their way when the first refusal comes back. Each limiter must be
// identified within 2 %, and whether a sliding window counts refused requests tested. Before, a
// fixed window read as a sliding one 8 % off, a window opened by the first request as 49 per
// 0.492 s, and a sliding log as nothing.

import { describe, expect, it } from 'vitest';
import { acceptedBeforeRefusal, sendingEndMs } from '../../src/ratelimit/probe/arrival.js';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { NOT_RUN, STAIRCASE_TIMING } from '../../src/ratelimit/probe/batch-staircase.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { pastStatedPrecision, periodOutcome, relativeError } from './support.js';
import { discoverVirtual, fromModel, gcra, haproxyRate, type Limiter, type VirtualEndpoint } from './virtual-limit.js';

const NETWORK = { oneWayMs: 50, jitterMs: 10 };

const fixed = (limit: number, window_s: number, extra: Partial<LimiterModel> = {}): LimiterModel =>
  ({ kind: 'fixed-window', limit, window_s, phase_s: 0, counts_refused: false, ...extra }) as LimiterModel;

const cases: Array<{ name: string; limiter: () => Limiter; truth: LimiterModel }> = [
  { name: 'token bucket 20/s burst 5', limiter: () => gcra(20, 5), truth: { kind: 'bucket', rate_rps: 20, burst: 5 } },
  { name: 'fixed window 50 per 1 s', limiter: () => fromModel(fixed(50, 1)), truth: fixed(50, 1) },
  {
    name: 'fixed window 50 per 1 s, opened by the first request',
    limiter: () => fromModel(fixed(50, 1, { edges: 'first-request', counts_refused: true })),
    truth: fixed(50, 1, { edges: 'first-request' }),
  },
  {
    name: 'sliding log 50 per 1 s',
    limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
  },
  {
    name: 'HAProxy 50 per 1 s, every request counted',
    limiter: () => haproxyRate(50, 1000, true),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true },
  },
];

describe('across 50 ± 10 ms each way, on the virtual clock', () => {
  it.each(cases.flatMap((c) => [1, 2].map((seed) => ({ ...c, seed }))))(
    '$name (jitter seed $seed)',
    async ({ limiter, truth, seed }) => {
      const e = await discoverVirtual({ limiter, status: 429, network: { ...NETWORK, seed } });
      const context = JSON.stringify({ limiter: e.limiter, notes: e.notes });
      expect(e.limiter?.kind, context).toBe(truth.kind);
      expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
      if (truth.kind === 'fixed-window' && e.limiter?.kind === 'fixed-window')
        expect(e.limiter.edges ?? 'clock', context).toBe(truth.edges ?? 'clock');
      if (truth.kind === 'sliding-window' && e.limiter?.kind === 'sliding-window')
        expect(e.limiter.counts_refused, context).toBe(truth.counts_refused);
    },
  );
});

// The timer's staircase (probe/batch-staircase.ts) times ticks with one ping after another: across
// round trips of ~100 ms the comebacks it would time are the answers' own clumps, and before it
// was ruled out ahead of its first request it sent enough here to cost a sliding log its period
// (one toxiproxy run in four). Ruled out, it must send nothing, whichever limiter answers; a
// timer-refilled bucket of two batches, whose clump would set it off, says why in its evidence.
const BATCH_BUCKET: LimiterModel = { kind: 'bucket', rate_rps: 50, burst: 100, fill_interval_s: 1 };
const staircaseCases = [
  ...cases,
  {
    name: 'token bucket 50/s burst 50',
    limiter: () => gcra(50, 50),
    truth: { kind: 'bucket', rate_rps: 50, burst: 50 },
  },
  { name: 'batch bucket 50 every 1 s, max 100', limiter: () => fromModel(BATCH_BUCKET), truth: BATCH_BUCKET },
];

describe('across 50 ± 10 ms each way, no timer staircase is sent (virtual time)', () => {
  it.each(staircaseCases.flatMap((c) => [1, 2, 3].map((seed) => ({ ...c, seed }))))(
    '$name (jitter seed $seed)',
    async ({ limiter, truth, seed }) => {
      const progress: string[] = [];
      const e = await discoverVirtual(
        { limiter, status: 429, network: { ...NETWORK, seed } },
        { progress: (line) => progress.push(line) },
      );
      const context = JSON.stringify({ limiter: e.limiter, evidence: e.limiter_evidence, progress });
      expect(
        progress.filter((line) => line.includes(STAIRCASE_TIMING)),
        context,
      ).toEqual([]);
      if (truth === BATCH_BUCKET) expect(e.limiter_evidence?.join('\n'), context).toContain(NOT_RUN);
    },
  );
});

/** The sliding log 50 per 1 s read at seeds 1 to `seeds`, each on its own network: outcomes counted, the misread named. */
async function slidingLogSweep(seeds: number, network: (seed: number) => VirtualEndpoint['network']) {
  const truth: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };
  const counts = { 'within 2 %': 0, 'beyond 2 %': 0, 'not identified': 0, 'another kind': 0 };
  const misread: string[] = [];
  const pastStated: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429, network: network(seed) });
    const outcome = periodOutcome(e, truth);
    counts[outcome]++;
    if (outcome !== 'within 2 %') misread.push(`seed ${seed}: ${outcome} ${JSON.stringify(e.limiter)}`);
    const past = pastStatedPrecision(e, truth);
    if (past) pastStated.push(`seed ${seed}: ${past}`);
  }
  return { counts, misread: misread.join('\n'), pastStated };
}

// The sliding log's period is bisected on send times; across the network the limiter sees each
// request its own one-way delay later, so a request sent x after the clump's first one arrives
// x ± 20 ms after it: ±2 % of the period, as wide as the goal. Bisected to ±1.5 % regardless, 7 of
// these 200 seeds read the period 2.04–2.56 % off (seed 168: 50 per 0.977 s, 2.36 % fast, as on CI);
// the trials now go on until the bracket and the measured noise together are within 2 %. What the
// report states is wider than that: the bracket's half-width with 2.5 deviations of one gap's noise
// (sliding-period.ts statedPrecision), about ±2.7 % here. Stated as ±1.5 % before, 12 of these 200
// readings lay outside it (toxiproxy's, on CI 36c: 0.975 s, 2.56 % fast against ±1.5 %).
describe('the sliding log 50 per 1 s across 50 ± 10 ms each way, 200 jitter seeds', () => {
  it('reads its period within 2 % or says not identified (1 seed in 200 still beyond: a noise past 1.4 σ), and every reading within the precision it states', async () => {
    const { counts, misread, pastStated } = await slidingLogSweep(200, (seed) => ({ ...NETWORK, seed }));
    expect(pastStated).toEqual([]);
    expect(counts, misread).toEqual({
      'within 2 %': 199,
      'beyond 2 %': 1,
      'not identified': 0,
      'another kind': 0,
    });
  }, 60_000);
});

// Round trips as spread as toxiproxy's on a busy machine (±11–23 ms of them measured there, against
// ±8 ms at rest): 50 ± 17 ms each way. On send times the gap's noise alone was near the 2 % goal,
// so the bracket had to shrink to a few tenths of a per cent and 14 trials seldom did it (7 of these
// 40 seeds pinned, 33 "not pinned down"; toxiproxy's sliding log not identified about one run in
// eight). Read between the middles of the round trips, the noise is √2 smaller: 32 pinned, 7 not.
// Seed 3 reads 0.977 s: its noise (± 16 ms) past the 1.4 σ the goal allows for. Since the window
// edges' lattice is read within the arrivals' noise too (window-edges.ts seenEdges, where a rounder
// window's clock edge lands the trial's ping), 1 of the 7 not pinned is read within 2 %: 33, 6.
describe('the sliding log 50 per 1 s across 50 ± 17 ms each way, 40 jitter seeds', () => {
  it('pins its period mid-round-trip within 2 %, or says not identified', async () => {
    const truth: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };
    const counts = { 'within 2 %': 0, 'beyond 2 %': 0, 'not identified': 0, 'another kind': 0 };
    const pastStated: string[] = [];
    for (let seed = 1; seed <= 40; seed++) {
      const e = await discoverVirtual({
        limiter: () => fromModel(truth),
        status: 429,
        network: { oneWayMs: 50, jitterMs: 17, seed },
      });
      counts[periodOutcome(e, truth)]++;
      if (e.limiter === null) expect(e.notes.join('\n')).toMatch(/not pinned down/);
      const past = pastStatedPrecision(e, truth);
      if (past) pastStated.push(`seed ${seed}: ${past}`);
    }
    // Seed 3's 0.977 s is within the ±3.1 % it states (2 of these 34 were outside ±1.5 % before).
    expect(pastStated).toEqual([]);
    expect(counts).toEqual({ 'within 2 %': 33, 'beyond 2 %': 1, 'not identified': 6, 'another kind': 0 });
  }, 60_000);
});

// The same ± 10 ms with a heavy tail, as toxiproxy's round trips had beside the other toxiproxy
// precision file on CI: from 14 s on (the period's trials; a tail from the start costs other phases
// too), one request in 50 has a leg 100 ms longer. The first trial's send times are quiet, so the
// gaps are read on them; their noise was √2 × the standard deviation of every round trip, which a
// few stretched ones made ± 20–32 ms, past 2 % of the period: the trials ended "not pinned down"
// after 2–9 (CI: after 2, ± 30 ms; after 3, ± 50 ms), 79 of these 100 seeds before (21 pinned).
// Now a gap on a stretched trip is not counted, nor is that trip in the noise. Two (three with
// log-phase.ts's third clump) pinned the period, then failed the log-phase check: the early ping,
// let through 0.93–0.95 s after its clump on a stretched leg, reached the log past its period. A
// ping let through on a stretched round trip now proves nothing (the clump goes again): none.
describe('the sliding log 50 per 1 s across 50 ± 10 ms each way with a heavy tail, 100 jitter seeds', () => {
  it('pins its period within 2 %, never "not pinned down" for a few stretched round trips', async () => {
    const truth: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };
    const stretched = (seed: number) => ({ every: 50, extraMs: 100, fromMs: 14_000, seed: seed + 500 });
    const readings = [];
    for (let seed = 1; seed <= 100; seed++) {
      const network = { ...NETWORK, seed, stretched: stretched(seed) };
      readings.push(await discoverVirtual({ limiter: () => fromModel(truth), status: 429, network }));
    }
    const unpinned = readings.flatMap((e, i) =>
      e.notes.filter((line) => line.includes('period was not pinned down')).map((line) => `seed ${i + 1}: ${line}`),
    );
    const outcomes = readings.map((e) => periodOutcome(e, truth));
    const count = (o: ReturnType<typeof periodOutcome>) => outcomes.filter((x) => x === o).length;
    expect(unpinned).toEqual([]);
    const pastStated = readings.flatMap((e, i) => {
      const past = pastStatedPrecision(e, truth);
      return past ? [`seed ${i + 1}: ${past}`] : [];
    });
    expect(pastStated).toEqual([]);
    expect({
      within: count('within 2 %'),
      beyond: count('beyond 2 %'),
      notIdentified: count('not identified'),
    }).toEqual({
      within: 100,
      beyond: 0,
      notIdentified: 0,
    });
  }, 60_000);
});

// The same heavy tail from the very start (one request in 150, a leg 200 ms longer): the phases
// before the trials read off it too. Seed 22's window edges (a sliding log's follow the probe's
// clumps) fitted a lattice 0.922-0.940 s apart (without the tail, 1.08-1.10 s), and the trials
// took 1.04 × that, 0.968 s, for an upper end seen; every trial's request came too early, none
// asked at that end, and the log read 50 per 0.964 s, 3.6 % fast (and "refused requests count",
// that check placed short of the period). Now an end no trial confirmed is asked at once the
// bracket is pinned: refused there, the trials look past it (seed 22: 0.998 s, 11 trials). Seeds
// 51 and 54 read as windows opened by the first request, 50 per 0.984 s and 0.979 s (1.6 and 2.1 %
// fast), until the edge trial took a clump let in a period or more after its burst (the drain's
// comeback bounds a log's period) for nothing: they are now the log. Seed 17 was not identified until
// the recovery clump's and log-phase's checks of the abovetrue merge; it now reads within 2 %.
describe('the sliding log 50 per 1 s across 50 ± 10 ms each way, a heavy tail from the start, 100 seeds', () => {
  it('never reads its period beyond 2 % on an upper end no trial confirmed', async () => {
    const stretched = (seed: number) => ({ every: 150, extraMs: 200, fromMs: 0, seed: seed + 500 });
    const { counts, misread, pastStated } = await slidingLogSweep(100, (seed) => ({
      ...NETWORK,
      seed,
      stretched: stretched(seed),
    }));
    expect(pastStated).toEqual([]);
    expect(counts, misread).toEqual({
      'within 2 %': 100,
      'beyond 2 %': 0,
      'not identified': 0,
      'another kind': 0,
    });
  }, 60_000);
});

// The same network with the probe's machine overloaded (ratelimit-network.test.ts beside three
// heavy test files): timers fire, requests leave and answers reach the probe up to `lateMs` late.
// A window's length read a hair short (0.99 s) puts the edges extrapolated twenty windows on a
// fifth of a window off; the batch-bucket check (probe/batch-bucket.ts) sent its clump a twentieth
// after such an edge, straddled the real one and read the window's two limits as a bucket's saved
// batches: 'bucket 50.4/s, burst 57, refilled every 0.992 s' (seed 44 at 10 ms; seed 39 at 5 ms).
// 3 of the 4 not identified at 5 ms late were edges read on send times alone: within the
// arrivals' noise (window-edges.ts seenEdges) they are the fixed window.
describe('the fixed window 50 per 1 s across 50 ± 10 ms each way, on a busy machine, 100 seeds', () => {
  it.each([
    // 99 -> 98 since an edge whose window refused part of its fill keeps its lower end moved back
    // while the walk pins the lattice (window-edges.ts reboundEdges).
    { lateMs: 5, expected: { 'fixed window within 2 %': 98, 'not identified': 2, other: 0 } },
    // 100 -> 98: two edge trials that could not run (their plan, at the pace the bursts were sent,
    // no longer fits the window) no longer stand for "on the clock" (see the 20 ms case below).
    { lateMs: 10, expected: { 'fixed window within 2 %': 98, 'not identified': 2, other: 0 } },
  ])(
    'up to $lateMs ms late: a fixed window or not identified, never a bucket',
    async ({ lateMs, expected }) => {
      const truth = fixed(50, 1);
      const counts = { 'fixed window within 2 %': 0, 'not identified': 0, other: 0 };
      const others: string[] = [];
      for (let seed = 1; seed <= 100; seed++) {
        const e = await discoverBusy(truth, seed, lateMs);
        const within = (relativeError(e.sustained_rps, sustainedRate(truth)) ?? Infinity) <= 0.02;
        const outcome: keyof typeof counts =
          e.limiter === null
            ? 'not identified'
            : e.limiter.kind === 'fixed-window' && within
              ? 'fixed window within 2 %'
              : 'other';
        counts[outcome]++;
        if (outcome === 'other')
          others.push(`seed ${seed}: ${JSON.stringify(e.limiter)} ${e.limiter_evidence.join('; ')}`);
      }
      expect(counts, others.join('\n')).toEqual(expected);
    },
    60_000,
  );
});

// Each window's fill (the limit after the edge found) and the recovery's clump go out at max_rps,
// paced; on a busy machine the timers fire late and the pace falls behind without catching up
// (pacing.ts), so up to 20 ms late a fill of 49 can take a window or more and run past the next
// edge unseen (the next window lets its tail through too). The walk took the fill's last request
// for "the next edge is after this": the edge placed late, the edges then 'not evenly spaced' or
// the window read long (1.024–1.06 s at 23 of these 100 seeds, 0.94–0.99 s at 4, seed 30: the
// recovery clump sent until 2016 ms, the next edge at 1950 ms in send time). Now only the part of
// a fill sent at the pace asked for, or a refusal, bounds the next edge. The limit is the recovery
// clump's count (recover.ts), and that clump too ran past the edge: never refused (66), or its count
// taking in the next window's first admissions as ones that overtook its refusal (51–58), 13 of
// these seeds above 50; at 2 more the clump came back short (45, 46: the drain's tail, in flight
// when the edge passed, let through before it), each window was filled short and its edge read
// early (0.892 s, 0.875 s: 50.4 and 52.6 r/s). Now the count stands only if all it rests on was
// sent before the next edge the walk found and nothing of the probe's was let through in its
// window before it, and a clump never refused only if no window after it refused its fill; else
// it is counted again by up to two clumps from later edges (window-edges.ts recountLimit), and not
// identified if neither shows it (83 within 2 %, 17 not identified before the recount; 84 and 16 after).
// 84 -> 9 within since an edge trial that could not run no longer stands for "on the clock": this
// late the limit takes longer to send than the trial has (about 0.7 s of a 1 s window), and a
// sliding log's edges fit a lattice as well (read as fixed windows up to 9 % off: 46 of 60 seeds,
// network-busy-log-virtual.test.ts). A burst across the clock's edge still tells 9 of them
// (probe/straddle-trial.ts); the other 91 are not identified, and the stage searches their rate.
describe('the fixed window 50 per 1 s across 50 ± 10 ms each way, up to 20 ms late, 100 seeds', () => {
  it("reads the window's length within 2 % or says not identified, never its limit or rate above the true one", async () => {
    const truth = fixed(50, 1);
    const readings: WindowReading[] = [];
    const beyond: string[] = [];
    const above: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const { limiter, sustained_rps } = await discoverBusy(truth, seed, 20);
      readings.push(windowReading(limiter));
      if (readings.at(-1) === 'beyond 2 %') beyond.push(`seed ${seed}: ${JSON.stringify(limiter)}`);
      if ((limiter !== null && 'limit' in limiter && limiter.limit > 50) || (sustained_rps ?? 0) > 50)
        above.push(`seed ${seed}: ${JSON.stringify(limiter)}, ${sustained_rps} r/s`);
    }
    expect(above, 'a limit or rate above the true one').toEqual([]);
    const count = (r: WindowReading) => readings.filter((x) => x === r).length;
    expect(
      {
        within: count('within 2 %'),
        notIdentified: count('not identified'),
        beyond: count('beyond 2 %'),
        limitMisread: count('limit misread'),
      },
      beyond.join('\n'),
      // 9 -> 10 within since a fill's crossing keeps its edge's lower end moved back (window-edges.ts reboundEdges).
    ).toEqual({ within: 10, notIdentified: 90, beyond: 0, limitMisread: 0 });
  }, 60_000);
});

type WindowReading = 'within 2 %' | 'not identified' | 'beyond 2 %' | 'limit misread';

/** The fixed window 50 per 1 s as read: its length against 1 s, apart when its limit was not 50. */
function windowReading(limiter: LimiterModel | null): WindowReading {
  if (limiter === null) return 'not identified';
  if (limiter.kind !== 'fixed-window') return 'beyond 2 %';
  if (limiter.limit !== 50) return 'limit misread';
  return Math.abs(limiter.window_s - 1) <= 0.02 ? 'within 2 %' : 'beyond 2 %';
}

/** The whole probe against `truth` across NETWORK with the machine busy (up to `lateMs` late). */
const discoverBusy = (truth: LimiterModel, seed: number, lateMs: number) =>
  discoverVirtual({
    limiter: () => fromModel(truth),
    status: 429,
    network: { ...NETWORK, seed },
    busy: { lateMs, seed: seed + 2000 },
  });

const sample = (sentMs: number, doneMs: number, answer: Sample['answer']): Sample => ({
  sentMs,
  doneMs,
  status: answer === 'accepted' ? 200 : 429,
  answer,
  phase: 'edges',
  client: 'primary',
});

describe('a run read in the order the limiter saw it, as far as the round trips tell', () => {
  it.each([
    {
      name: 'one acceptance overtook the refusal (sent 5 ms after it, round trips 80–120 ms): counted',
      run: [
        sample(0, 100, 'accepted'),
        sample(5, 125, 'limited'),
        sample(10, 90, 'accepted'),
        sample(200, 300, 'limited'),
      ],
      counted: 2,
      endMs: 5,
    },
    {
      name: 'on loopback (round trips alike), an acceptance after the refusal is a refill: not counted',
      run: [sample(0, 2, 'accepted'), sample(5, 7, 'limited'), sample(10, 12, 'accepted')],
      counted: 1,
      endMs: 5,
    },
    {
      name: 'the requests in flight after the first refusal do not make the run end late',
      run: [
        sample(0, 100, 'accepted'),
        sample(5, 105, 'limited'),
        ...[10, 15, 20, 95].map((t) => sample(t, t + 100, 'limited')),
      ],
      counted: 1,
      endMs: 5,
    },
  ])('$name', ({ run, counted, endMs }) => {
    expect(acceptedBeforeRefusal(run)).toHaveLength(counted);
    expect(sendingEndMs(run)).toBe(endMs);
  });
});

// HAProxy's http_req_rate across the same network: its counters start afresh only after two idle
// periods, and the trials waited two of the period's upper end. A single let through early on the
// network's noise made that end short, two of it fell short of HAProxy's two periods, the counters
// carried the last trial's period into the next clump, whose single was let in early again: 50 per
// 0.965 s (3.6 % fast) against ±2.7 % stated, and a period read short enough that the counts-refused
// trial's request "past the period" was not, so it said refused requests count when they did not.
// The waits now allow a gap's noise past that end (sliding-period.ts GAP_REACH). Before, at these
// 100 seeds: every request counted, 6 beyond 2 % and 3 past what they stated; admitted only, 7
// beyond 2 %, 3 past, and 6 read as counting refusals.
// Across ± 17 ms each way, the admitted-only recipe is often sized by a stream just over its limit
// (discover.ts streamedSlidingWindow): the median of its pairwise slopes stated ±0.78 % where it
// read 49.5 req/s, 1 % slow, at 2 of the 84 seeds it sized (seeds 78 and 90). Its precision now
// takes in a gap's noise over the stream's span (sliding-period.ts streamPrecision).
describe('HAProxy 50 per 1 s, admitted only, across 50 ± 17 ms each way, 100 jitter seeds', () => {
  it('every reading within the precision it states', async () => {
    const truth: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };
    const past: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      const e = await discoverVirtual({
        limiter: () => haproxyRate(50, 1000, false),
        status: 429,
        network: { oneWayMs: 50, jitterMs: 17, seed },
      });
      const off = pastStatedPrecision(e, truth);
      if (off) past.push(`seed ${seed}: ${off}`);
    }
    expect(past).toEqual([]);
  }, 60_000);
});

describe('HAProxy 50 per 1 s across 50 ± 10 ms each way, 100 jitter seeds', () => {
  it.each([true, false])(
    'refused requests counted: %s; every reading within the precision it states, and whether refusals count read right',
    async (countsRefused) => {
      const truth: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: countsRefused };
      const wrong: string[] = [];
      const counts = { 'within 2 %': 0, 'beyond 2 %': 0, 'not identified': 0, 'another kind': 0 };
      for (let seed = 1; seed <= 100; seed++) {
        const e = await discoverVirtual({
          limiter: () => haproxyRate(50, 1000, countsRefused),
          status: 429,
          network: { ...NETWORK, seed },
        });
        counts[periodOutcome(e, truth)]++;
        const past = pastStatedPrecision(e, truth);
        if (past) wrong.push(`seed ${seed}: ${past}`);
        if (e.limiter?.kind === 'sliding-window' && e.limiter.counts_refused === !countsRefused)
          wrong.push(`seed ${seed}: counts_refused ${e.limiter.counts_refused}`);
      }
      expect(wrong).toEqual([]);
      expect(counts['another kind']).toBe(0);
      expect(counts['not identified']).toBe(0);
    },
    60_000,
  );
});
