// A bucket refilled by a timer in whole batches (Envoy's token_bucket: max_tokens, tokens_per_fill,
// fill_interval) holding more than one batch, read off its staircase. Drained, it gives back exactly
// a batch at each tick of its timer and nothing between: a step of N every I, where a continuous
// bucket lets one request back at a time and a window its whole limit. Its capacity C shows only
// from idle: after ≥ C / N ticks without a request a burst takes all of it (whole batches), where a
// fixed window (or a bucket of one batch, which is one) lets its limit through and no more.
//
// The first drain gives it away: it came back in a clump smaller than what the drain let through.
// So: the recovery and clump again at the next few ticks (the period from the lattice their brackets
// allow, as window edges are pinned: identify.ts), then bursts from idle, growing the idle until
// the burst stops growing. Ticks that fell inside a burst gave it a batch each: taken off.

import { midpoint, nextEdge, windowLength, type Bracket } from '../identify.js';
import { percentile, round } from '../estimators.js';
import type { BucketModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { lastSentMs } from './counter-edge.js';
import { drainAt, drainFits, pingUntilAccepted } from './ping.js';
import type { Probe } from './probe.js';
import { countUntilRefused, firstGapMs, type ShapeFindings } from './recover.js';

export type BatchBucketModel = BucketModel & { fill_interval_s: number };

export interface StaircaseFindings {
  /** The bucket, sized; null with `sawStairs` false: no staircase (or one batch, a fixed window), the usual path decides. */
  model: BatchBucketModel | null;
  /** A regular staircase was seen, so no other kind fits, but its capacity or its period (to 1 %) could not be measured: not identified. */
  sawStairs: boolean;
  /** Whether it sent anything: false when the network's round trips ruled it out beforehand (the other kinds' readings undisturbed). */
  ran: boolean;
  evidence: string;
  /** The last tick timed, found as the shape phase finds its first recovery: where a window's edge walk takes over. */
  latest?: ShapeFindings['recovery'];
  /** The ticks' spacing, ms, once they told a fixed window on the clock: where its edge walk looks for the next edge. */
  periodMs?: Bracket;
  /**
   * With `sawStairs` and no model: the rate the ticks pinned to ACCEPTED_PRECISION, a batch a tick,
   * whose capacity was not measured. A timer's bucket and a fixed window (one batch a window) both
   * sustain it: an unknown burst does not hide a known rate (issue 35).
   */
  rate?: { rps: number; precision: number };
}

/** Ticks the staircase times before the period is believed (the shape phase's comeback is not one: its batch may have been shared): two spans at least. */
const MIN_TICKS = 3;
const MAX_TICKS = 10;
/** The period's half-width, relative, the tick timing stops at: well inside the 2 % asked of the rate. */
const TICK_PRECISION = 0.004;
/** The most a period may be uncertain once the ticks run out: half the 2 % asked of the rate. */
const ACCEPTED_PRECISION = 0.01;
/**
 * Looser than that (a network's jitter moves each tick's bracket), the staircase still says which
 * kind it is and how much it holds, but not the rate: not identified, never a bucket's rate guessed.
 */
const KIND_PRECISION = 0.03;
/**
 * How many answers' round trips (p95) a tick's period must span: 14. Pings go one after another, so
 * a tick is bracketed no finer than a round trip, and MAX_TICKS - 1 periods between the first and
 * last tick pin the period to TICK_PRECISION (half-width) only when it spans this many. Shorter,
 * answers that come back late and jittered come back in clumps of their own at a cadence the probe
 * itself sets: a continuous bucket behind 50 ± 20 ms answers once read as 9 requests every 0.199 s,
 * a 25 req/s bucket behind 2 s answers spent the probe's time cap on its staircase, and HAProxy
 * counting every request behind 50 ± 10 ms each way came back 1.29 s after its drain, past ten
 * round trips (125 ms) but not fourteen, and set it off.
 */
const ROUND_TRIPS_PER_TICK = Math.ceil(1 / (2 * TICK_PRECISION * (MAX_TICKS - 1)));
/** Bursts from idle at most, each with a longer idle than the last. */
const MAX_IDLE_BURSTS = 5;
/** Where an idle burst starts after a tick: past the tick's uncertainty, with most of a period to go. */
const AFTER_TICK = 0.04;

/**
 * The first drain came back in a clump (not one request at a time) but smaller than the drain: a
 * batch of a bucket that holds more, or a fixed window's limit after a drain that straddled its
 * edge (a window's drain that did not straddle one comes back whole). Not what a smooth window
 * frees: when the shape phase timed the trickle after the clump, a smooth window had freed one
 * request per trickle while the ping that found it was late (twice that, and two, for slack); a
 * bucket of batches trickles a tick apart, far slower than its clump came. The bound of
 * smoothClumpMax, from the drain, is loose after a long drain (a bucket of several batches).
 */
export function cameBackInBatch(shape: ShapeFindings): boolean {
  const { clump, lateMs, trickleMs } = shape.figures;
  const smoothMax = trickleMs !== null && trickleMs > 0 ? (2 * lateMs) / trickleMs + 2 : 0;
  return clump >= 3 && clump > smoothMax && clump < shape.drain.limit - 2 && trickleHeldBatch(shape);
}

/**
 * When the shape phase timed single requests after its clump: a tick gives a whole batch, so after
 * the first (found at the next tick) the others pass at once, none refused between. A smooth window
 * frees them one at a time, each after refusals (a sliding counter 50 per 1 s came back 18, then one
 * every 51 ms: the staircase it set off cost the probe's later phases their timing, read as a log).
 */
function trickleHeldBatch(shape: ShapeFindings): boolean {
  return shape.trickleRefused.slice(1).every((refused) => refused === 0);
}

// AFTER_BURSTS: the bursts from idle spend a window after the last tick timed; the edge walk that
// takes over from that tick would take the spent window for the next one (a 30 per 1 s window whose
// drain straddled an edge read edges 3.9 s apart, "not evenly spaced", and was not identified).

/**
 * The shape phase's clump is the first guess of the batch; the staircase's first whole batch is the
 * reference (over a network the ping that found the comeback may have been answered after others
 * took some). `drainFromIdle` false: the shape's drain followed a short wait (a confirming drain, confirm-shape.ts)
 * and may have found a batch or two where the bucket holds more, so it says nothing of a window;
 * `earlier`, the first drain's shape then, whose comebacks count too.
 */
export async function staircasePhase(
  probe: Probe,
  shape: ShapeFindings,
  drainFromIdle = true,
  earlier?: ShapeFindings,
): Promise<StaircaseFindings> {
  let batch = shape.figures.clump;
  let latest: ShapeFindings['recovery'] | undefined;
  const noStairs = (why: string, fixed = false): StaircaseFindings => ({
    model: null,
    sawStairs: false,
    ran: true,
    evidence: why,
    ...(latest ? { latest } : {}),
    ...(fixed ? { periodMs: windowLength(ticks) } : {}),
  });
  // Before a request: whether round trips this long can time the ticks at all (timerOutOfReach).
  const outOfReach = timerOutOfReach(probe, earlier ? [shape, earlier] : [shape]);
  if (outOfReach !== undefined) return { model: null, sawStairs: false, ran: false, evidence: outOfReach };
  probe.progress(`${batch} requests came back at once after the drain: ${STAIRCASE_TIMING}`);
  // The shape phase's pings after its clump may have taken part of a later batch: what is left of
  // it first, so that each tick timed from here on gives its whole batch to the clump after it.
  await probe.burstRun('recover', batch + 5);
  // How long after each clump a ping was still refused: a timer keeps quiet between its ticks.
  const quietMs: number[] = [];
  const ticks: Bracket[] = [];
  let periodMs: { value: number; precision: number } | undefined;
  while (ticks.length < MAX_TICKS) {
    const step = await nextStep(probe, ticks, batch);
    if (!step) return noStairs('the staircase was cut short by the budget');
    if (step.clump === undefined) return noStairs('a clump after a comeback was never refused');
    // A smooth window's clumps after its first shrink to a request or two; a timer's batch does not.
    if (ticks.length === 0 && step.clump >= Math.max(3, batch - 1)) batch = step.clump;
    // Not the same batch again: no timer (a sliding counter's weight, a window's straddle), not ours to read.
    if (Math.abs(step.clump - batch) > 1) return noStairs(`came back ${batch}, then ${step.clump}`);
    ticks.push(step.tick);
    quietMs.push(step.quietMs);
    latest = step.recovery;
    if (ticks.length < 2) continue;
    const length = windowLength(ticks);
    if (length.lo > length.hi) return noStairs('the comebacks fall on no regular timer');
    periodMs = midpoint(length);
    // Comebacks a few round trips apart are the answers' own clumps as much as a timer's ticks.
    const tripsNowMs = roundTripMs(probe.samples);
    if (periodMs.value < ROUND_TRIPS_PER_TICK * tripsNowMs)
      return noStairs(
        `came back ${batch} at a time every ${round(periodMs.value / 1000, 3)} s, under ${ROUND_TRIPS_PER_TICK} answers' round trips (${round(tripsNowMs, 1)} ms, p95): the answers' clumps, not told from a timer's ticks`,
      );
    if (ticks.length >= MIN_TICKS && periodMs.precision <= TICK_PRECISION) break;
  }
  if (!periodMs || periodMs.precision > KIND_PRECISION) return noStairs('the timer was not pinned down');
  const intervalMs = periodMs.value;
  // A bucket refilled continuously lets a request through once a token's time has passed after
  // the clump it refused: a timer's between ticks, a ping refused long after its clump (two
  // tokens' time at the staircase's rate, and a round trip for its way there) is what tells them.
  const quietNeededMs = (2 * intervalMs) / batch + roundTripMs(probe.samples);
  const quietestMs = Math.max(...quietMs);
  if (quietestMs < quietNeededMs)
    return noStairs(
      `came back ${batch} at a time every ${round(intervalMs / 1000, 3)} s, but no ping was refused more than ${round(quietestMs, 0)} ms after a clump (a continuous refill frees a request within ${round(quietNeededMs, 0)} ms): no quiet between ticks seen`,
    );
  const stairs = `after a drain, ${batch} requests came back at once every ${round(intervalMs / 1000, 3)} s (${ticks.length} ticks, ±${round(100 * periodMs.precision, 1)} %) and none between (a ping refused ${round(quietestMs, 0)} ms after a clump)`;
  const lattice = new TickLattice(ticks);
  // The first drain, less a batch for each tick inside it: one batch at most is a fixed window's
  // limit (a drain that straddled its edge). Told only once the ticks are pinned: from a tick timed
  // loosely, the window's edge walk that takes over misreads the edges (100 per 2 s: nothing).
  const drainTicks = drainFromIdle
    ? lattice.ticksWithin(shape.drain.firstMs, shape.drain.refusal.sentMs, probe)
    : undefined;
  if (drainTicks !== undefined && shape.drain.limit - drainTicks * batch <= batch + 1)
    return noStairs(`${stairs}, the drain no more than a batch a tick: a fixed window`, true);

  let idleTicks = Math.ceil(shape.drain.limit / batch) + 1;
  let previous: number | undefined;
  let offset = AFTER_TICK;
  for (let i = 0; i < MAX_IDLE_BURSTS; i++) {
    const sizes = await idleBurst(probe, lattice, idleTicks, batch, offset);
    if (sizes === undefined) break;
    if (sizes === 'ambiguous') {
      // A tick fell as the burst ran out: from another point between ticks, the burst ends elsewhere.
      offset = offset === AFTER_TICK ? AFTER_TICK + 0.5 : AFTER_TICK;
      continue;
    }
    // A fixed window: its edge walk goes on from an edge timed after these bursts (AFTER_BURSTS).
    if (sizes <= batch + 1) latest = (await nextStep(probe, ticks, batch))?.recovery ?? latest;
    if (sizes <= batch + 1)
      return noStairs(`${stairs}; from ${idleTicks} idle ticks, only ${sizes} passed: a fixed window`, true);
    const took = sizes >= idleTicks * batch - 1;
    if (!took && previous !== undefined && Math.abs(sizes - previous) <= 1) {
      const capacity = Math.max(sizes, previous);
      if (periodMs.precision > ACCEPTED_PRECISION)
        return {
          model: null,
          sawStairs: true,
          ran: true,
          evidence: `${stairs}; from idle, ${previous} then ${sizes} passed at once: a bucket refilled by a timer, ${batch} tokens a tick up to ${capacity}, its interval not pinned down to the 1 % a rate needs`,
        };
      return {
        model: {
          kind: 'bucket',
          rate_rps: round((batch * 1000) / intervalMs, 2),
          burst: capacity,
          fill_interval_s: round(intervalMs / 1000, 3),
        },
        sawStairs: true,
        ran: true,
        evidence: `${stairs}; from idle, ${previous} then ${sizes} passed at once (${capacity} after more idle ticks than that takes): a bucket refilled by a timer, ${batch} tokens every ${round(intervalMs / 1000, 3)} s up to ${capacity}`,
      };
    }
    // It took all the idle ticks gave (it may hold more), or it has not been measured twice yet.
    previous = took ? undefined : sizes;
    idleTicks = took ? Math.ceil(sizes / batch) + 2 : idleTicks + 1;
  }
  return capacityUnmeasured(stairs, batch, periodMs);
}

/** A staircase whose bursts from idle never settled: not identified, its rate kept when the ticks pinned it. */
function capacityUnmeasured(stairs: string, batch: number, periodMs: { value: number; precision: number }) {
  return {
    model: null,
    sawStairs: true,
    ran: true,
    evidence: `${stairs}: a bucket refilled by a timer, but its capacity was not measured (bursts from idle did not settle within the budget)`,
    ...(periodMs.precision <= ACCEPTED_PRECISION
      ? { rate: { rps: (batch * 1000) / periodMs.value, precision: periodMs.precision } }
      : {}),
  } satisfies StaircaseFindings;
}

/**
 * Why round trips this long cannot time the timer, judged before the staircase sends anything;
 * undefined when they can. The comebacks the shape phase saw (the first after the drain, the next
 * single one after the clump: a tick's interval at most) must be ROUND_TRIPS_PER_TICK answers'
 * round trips apart at p95, and MIN_TICKS of them must fit in the time left. Checked only after
 * the ticks were timed, behind toxiproxy's 50 ± 10 ms each way it ran first: a sliding log 50 per
 * 1 s gave 2 ticks 'every 1.095 s, under 10 round trips of 194 ms' before it stopped, and the
 * requests it had sent cost that log its period one run in four.
 */
function timerOutOfReach(probe: Probe, shapes: readonly ShapeFindings[]): string | undefined {
  const tripsMs = roundTripMs(probe.samples);
  const spacingMs = Math.max(...shapes.map(comebackSpacingMs));
  const neededMs = ROUND_TRIPS_PER_TICK * tripsMs;
  if (spacingMs < neededMs)
    return `${NOT_RUN}: comebacks ${round(spacingMs, 0)} ms apart, under ${ROUND_TRIPS_PER_TICK} answers' round trips (${round(tripsMs, 1)} ms, p95)`;
  if (MIN_TICKS * Math.max(spacingMs, neededMs) > probe.maxDurationMs - probe.elapsed())
    return `${NOT_RUN}: ${MIN_TICKS} comebacks ${round(spacingMs, 0)} ms apart do not fit in the time left`;
  return undefined;
}

/** How every staircase ruled out before its first request says so in the evidence, and how one that sends says so in progress (tests look for both). */
export const NOT_RUN = "timer's staircase not run";
export const STAIRCASE_TIMING = "timing a timer's staircase";

/** The longest the shape phase waited between comebacks: after the drain, and after the clump for the next single request. */
function comebackSpacingMs(shape: ShapeFindings): number {
  const [nextMs] = shape.trickleAdmittedMs;
  const afterClumpMs = nextMs === undefined ? 0 : nextMs - shape.recovery.accepted.sentMs;
  return Math.max(shape.figures.recoveryMs, afterClumpMs);
}

/** The answers' round trip so far, p95 (0 before any answer). */
function roundTripMs(samples: readonly Sample[]): number {
  return (
    percentile(
      samples.map((s) => s.doneMs - s.sentMs),
      95,
    ) ?? 0
  );
}

/** A tick: after the last request refused before `accepted`, at or before it. */
function tickBracket(samples: readonly Sample[], accepted: Sample): Bracket {
  const lo = samples
    .filter((s) => s.answer === 'limited' && s.sentMs < accepted.sentMs)
    .reduce((last, s) => Math.max(last, s.sentMs), Number.NEGATIVE_INFINITY);
  // Widened by how much a request's way to the limiter may vary: on send times alone, the real Go
  // bucket's ticks once fitted a lattice only at 1.028 s, read as exact (±0 %: 2.8 % low).
  return { lo: lo - ARRIVAL_SPREAD_MS, hi: accepted.sentMs + ARRIVAL_SPREAD_MS };
}

/** How much sooner or later than its neighbours a request may reach the limiter, ms (loopback, a busy machine). */
const ARRIVAL_SPREAD_MS = 3;

/** Pings until the next tick lets one through, then a clump: that tick, and the batch it gave. */
async function nextStep(
  probe: Probe,
  ticks: Bracket[],
  batch: number,
): Promise<
  { tick: Bracket; clump: number | undefined; recovery: ShapeFindings['recovery']; quietMs: number } | undefined
> {
  const from = lastSentMs(probe.samples);
  const gap0 = firstGapMs(probe);
  let recovery;
  if (ticks.length >= 2) {
    // Aimed: evenly spaced pings through the bracket the lattice leaves for the next tick.
    const length = windowLength(ticks);
    // Tick after tick until one is still ahead (after idle bursts, several are past).
    let lattice = ticks;
    let next = nextEdge(lattice, length);
    while (next.hi <= from) {
      lattice = [...lattice, next];
      next = nextEdge(lattice, length);
    }
    const gap = Math.max(gap0, (next.hi - next.lo) / 4);
    const start = Math.max(from, next.lo - gap);
    const giveUpMs = next.hi + length.hi;
    recovery = await pingUntilAccepted(probe, 'recover', start - gap, gap, (g, last) =>
      last.sentMs > giveUpMs ? undefined : g,
    );
  } else {
    recovery = await pingUntilAccepted(probe, 'recover', from, gap0, 1.5);
  }
  const { accepted } = recovery;
  if (!accepted) return undefined;
  // Room for twice the batch expected: a clump that is never refused is no batch.
  const { samples } = await probe.burstRun('recover', 2 * batch + 5);
  return {
    tick: tickBracket(probe.samples, accepted),
    // The last ping refused before the tick, measured from the clump before it (0: none refused).
    quietMs: recovery.lastRefused ? recovery.lastRefused.sentMs - from : 0,
    clump: samples.some((s) => s.answer === 'limited') ? 1 + countUntilRefused(samples) : undefined,
    recovery: { ...recovery, accepted },
  };
}

/** How far a tick may be from a request's send time and still have met it at the limiter. */
const sendToArrivalMs = (probe: Probe) => Math.max(2 * firstGapMs(probe), 10);

/** Where the ticks fall, extrapolated from the timed ones either way. */
class TickLattice {
  private readonly length: Bracket;
  readonly periodMs: number;

  constructor(private readonly ticks: readonly Bracket[]) {
    this.length = windowLength(ticks);
    this.periodMs = (this.length.lo + this.length.hi) / 2;
  }

  /** Tick `j` (0: the first timed), as the brackets allow it. */
  at(j: number): Bracket {
    let lo = Number.NEGATIVE_INFINITY;
    let hi = Number.POSITIVE_INFINITY;
    for (const [i, t] of this.ticks.entries()) {
      const k = j - i;
      lo = Math.max(lo, t.lo + k * (k >= 0 ? this.length.lo : this.length.hi));
      hi = Math.min(hi, t.hi + k * (k >= 0 ? this.length.hi : this.length.lo));
    }
    return { lo, hi };
  }

  /** The index of the first tick surely after `ms`. */
  firstAfter(ms: number): number {
    let j = Math.floor((ms - this.ticks[0]!.hi) / this.periodMs);
    while (this.at(j - 1).lo > ms) j--;
    while (this.at(j).lo <= ms) j++;
    return j;
  }

  /** Ticks surely inside (fromMs, toMs), undefined when one may fall near either end (a request's send to arrival). */
  ticksWithin(fromMs: number, toMs: number, probe: Probe): number | undefined {
    const marginMs = sendToArrivalMs(probe);
    let count = 0;
    for (let j = this.firstAfter(fromMs - marginMs) - 1; ; j++) {
      const t = this.at(j);
      if (t.lo > toMs + marginMs) return count;
      const nearEnd = (ms: number) => t.lo - marginMs <= ms && ms <= t.hi + marginMs;
      if (nearEnd(fromMs) || nearEnd(toMs)) return undefined;
      if (t.lo > fromMs && t.hi < toMs) count++;
    }
  }
}

/**
 * A burst at max_rps after `idleTicks` ticks without a request, starting `offset` of a period after
 * the last of them: what it let through less a batch for each tick inside it (the level at its start);
 * 'ambiguous' when a tick fell near its end, undefined when the budget does not allow it.
 */
async function idleBurst(
  probe: Probe,
  lattice: TickLattice,
  idleTicks: number,
  batch: number,
  offset: number,
): Promise<number | 'ambiguous' | undefined> {
  const lastMs = lastSentMs(probe.samples);
  const tick = lattice.at(lattice.firstAfter(lastMs) + idleTicks - 1);
  const { periodMs } = lattice;
  // Past the tick by just more than ticksWithin allows for its send to arrival, or it reads
  // ambiguous; no further, or a slow probe's margin (200 ms at 20 req/s) fills the period: three
  // of them put every burst 600 ms past a 1 s tick, against the next one whatever its offset, and
  // a fixed window 5 per 1 s read as a timer's staircase never settled ("not identified", 27 s).
  const atMs = tick.hi + Math.max(offset * periodMs, sendToArrivalMs(probe) + 1);
  // Room for what the idle gave and the batches of the ticks the burst itself may run into.
  const sendMs = ((idleTicks + 1) * batch * 1000) / probe.maxRps;
  const cap = (idleTicks + 2 + Math.ceil(sendMs / periodMs)) * batch + 5;
  if (!drainFits(probe, probe.elapsed(), atMs - probe.elapsed(), cap, 1)) return undefined;
  const run = await drainAt(probe, 'idle-burst', atMs, cap);
  const refusal = run?.find((s) => s.answer === 'limited');
  if (!run || !refusal) return undefined;
  const inside = lattice.ticksWithin(run[0]!.sentMs, refusal.sentMs, probe);
  if (inside === undefined) return 'ambiguous';
  return countUntilRefused(run) - inside * batch;
}
