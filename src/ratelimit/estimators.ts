// The figures of a limit, computed from what the probe recorded. Pure functions of samples, so each
// can be tested on a hand-made series and reasoned about without a server.
//
// Time is the moment a request was sent (sentMs): the limiter decides on arrival, and on loopback
// or a steady network the arrival follows the send by a near-constant delay, which cancels out of
// every difference below. Answer times would add the service's latency jitter.

import { median, percentile, round } from '../toolkit/stats.js';
import { acceptedBeforeShut } from './probe/arrival.js';
import type { Sample, TimelinePoint } from './types.js';

// Re-exported: the probe's stages take their figures from here.
export { percentile, round };

const bySent = (a: Sample, b: Sample) => a.sentMs - b.sentMs;

/**
 * How many requests two counts of one limit may differ by and still be the same count: 0.5 % of
 * it, at least 2 (a set-up request the samples do not hold, a request in flight as a clump met
 * its refusal). One rule for every comparison of an announced quota with what passed.
 */
export const countSlack = (limit: number): number => Math.max(2, Math.ceil(0.005 * limit));

export interface SustainedFit {
  rps: number;
  /** Accepted requests in the window. */
  accepted: number;
  spanS: number;
  /** Relative spread of the estimate (half the interquartile range of the pairwise rates, or the pacing bound). */
  precision: number;
  /** Acceptance came in clumps (a fixed window?); rps is then accepted / window length. */
  clumpy: boolean;
}

/**
 * Accepted requests numbered 1, 2, 3, … in sending order, kept where the limiter was demonstrably
 * saturated: the previous request was refused at most two sending intervals earlier. On a saturated
 * limiter every unit of capacity it frees is taken by the next arrival, so the k-th acceptance
 * happens about k/rate after the first request, late by less than that gap: these points lie on the
 * line t = t0 + k/rate. Acceptances after a stall of the sender (the limiter refilled meanwhile)
 * are left out, so a busy machine that pauses the probe does not bend the line.
 */
export function saturatedPoints(samples: readonly Sample[]): Array<{ k: number; t: number }> {
  return segmentsOf(samples).flatMap((segment) => segment);
}

/** What times a saturated point: its acceptance, or the refused request just before it (see segmentsOf). */
export type PointTiming = 'acceptance' | 'refusal';

/**
 * The saturated points (see saturatedPoints) cut into segments wherever the sender stalled: a
 * limiter that holds little (nginx with burst=1 holds two requests) loses what it frees during a
 * stall longer than that, so the count k after the stall is behind the line before it. Each
 * segment is numbered on its own and compared only with itself.
 *
 * `timedBy: 'refusal'`: each point timed by the refused request before it instead. The unit came
 * after that refusal and before the acceptance, and a sender offering a little above the rate is
 * refused only when its request just beat the unit: the acceptance after it is late by nearly a
 * whole sending interval, the refusal early by almost nothing. Timed by acceptances, points sent
 * fast after a stall (late by little) and lean ones (late by a whole interval) bend the line low.
 */
export function segmentsOf(
  samples: readonly Sample[],
  timedBy: PointTiming = 'acceptance',
): Array<Array<{ k: number; t: number }>> {
  const sorted = [...samples].sort(bySent);
  if (sorted.length < 2) return [];
  const interval = sendingInterval(sorted);
  const maxLagMs = 2 * interval;
  const stallMs = 2.5 * interval;
  const segments: Array<Array<{ k: number; t: number }>> = [[]];
  let k = 0;
  for (const [i, s] of sorted.entries()) {
    const previous = sorted[i - 1];
    if (previous && s.sentMs - previous.sentMs > stallMs && segments[segments.length - 1]!.length > 0)
      segments.push([]);
    if (s.answer !== 'accepted') continue;
    k++;
    if (previous?.answer === 'limited' && s.sentMs - previous.sentMs <= maxLagMs)
      segments[segments.length - 1]!.push({ k, t: timedBy === 'refusal' ? previous.sentMs : s.sentMs });
  }
  return segments.filter((segment) => segment.length > 0);
}

/** The median time between consecutive requests of a series sorted by send time, ms. */
const sendingInterval = (sorted: readonly Sample[]): number =>
  median(sorted.slice(1).map((s, i) => s.sentMs - sorted[i]!.sentMs));

/**
 * The steady-state rate of a saturated limiter as measured (limiters/model.ts's sustainedRate is
 * the rate a known model admits): the Theil–Sen slope through its saturated points
 * (the median of the pairwise slopes of points of the same segment at least a third of that
 * segment apart). The median ignores the odd point whose request reached the service late, which
 * a least-squares fit or a first-to-last span would not. Limiters that keep what they owe (token
 * buckets, nginx's leaky bucket, GCRA) make this unbiased; a fixed window that resets gives one
 * saturated point per window (its first acceptance after the reset), so the slope is still
 * limit / window.
 *
 * `timedBy: 'refusal'` for a limit that frees its capacity steadily (a bucket): see segmentsOf.
 *
 * With too few saturated points (a short or interrupted probe) the estimate falls back to the
 * first-to-last span of acceptances, flagged `clumpy` when accepted / window length disagrees with
 * it by more than a quarter (then the latter is used).
 */
export function fitSustainedRate(window: readonly Sample[], timedBy: PointTiming = 'acceptance'): SustainedFit | null {
  const sorted = [...window].sort(bySent);
  const accepted = sorted.filter((s) => s.answer === 'accepted');
  if (accepted.length < 3 || sorted.length < 2) return null;
  const spanMs = accepted[accepted.length - 1]!.sentMs - accepted[0]!.sentMs;
  const windowMs = sorted[sorted.length - 1]!.sentMs - sorted[0]!.sentMs;
  if (spanMs <= 0 || windowMs <= 0) return null;

  const rates: number[] = [];
  let pointsSpanMs = 0;
  for (const points of segmentsOf(sorted, timedBy)) {
    const kSpan = points[points.length - 1]!.k - points[0]!.k;
    if (points.length < 2 || kSpan < 3) continue;
    pointsSpanMs += points[points.length - 1]!.t - points[0]!.t;
    const minApart = Math.max(3, kSpan / 3);
    for (let a = 0; a < points.length; a++) {
      for (let b = a + 1; b < points.length; b++) {
        const dk = points[b]!.k - points[a]!.k;
        const dt = points[b]!.t - points[a]!.t;
        if (dk >= minApart && dt > 0) rates.push((dk / dt) * 1000);
      }
    }
  }
  if (rates.length >= 5) {
    rates.sort((x, y) => x - y);
    const rps = median(rates);
    const q1 = rates[Math.floor(rates.length / 4)]!;
    const q3 = rates[Math.floor((3 * rates.length) / 4)]!;
    // The pairwise rates can all agree on a regular series (a virtual clock, a limiter with a
    // coarse tick) while each point may still be up to one sending interval late: over the span of
    // the points, that bounds the slope's error from below.
    const pacingBound = pointsSpanMs > 0 ? sendingInterval(sorted) / pointsSpanMs : 1;
    return {
      rps,
      accepted: accepted.length,
      spanS: pointsSpanMs / 1000,
      precision: Math.max((q3 - q1) / 2 / rps, pacingBound),
      clumpy: false,
    };
  }
  const bySpan = ((accepted.length - 1) / spanMs) * 1000;
  const byWindow = (accepted.length / windowMs) * 1000;
  const clumpy = Math.abs(bySpan - byWindow) / byWindow > 0.25;
  return {
    rps: clumpy ? byWindow : bySpan,
    accepted: accepted.length,
    spanS: spanMs / 1000,
    // One acceptance more or less over the span: what a short series can promise. Unless the limit
    // refused nothing over most of it: what passed there went at the sender's pace, not the limit's,
    // and the figure is a floor of unknown distance from the rate (41.14 "±0.17 %" read off a bucket
    // of 50 by a stream its machine could not send faster).
    precision: quietShare(sorted) > UNSATURATED_SHARE ? 1 : 1 / Math.max(1, accepted.length - 1),
    clumpy,
  };
}

/** The share of a series' span after which no refusal came that leaves its rate the sender's pace. */
const UNSATURATED_SHARE = 0.5;

/** The share of a series' span (sorted by send time) from its last refusal to its end; 1 with none. */
function quietShare(sorted: readonly Sample[]): number {
  const spanMs = sorted[sorted.length - 1]!.sentMs - sorted[0]!.sentMs;
  const lastRefused = sorted.findLast((s) => s.answer === 'limited');
  if (lastRefused === undefined) return 1;
  return spanMs > 0 ? (sorted[sorted.length - 1]!.sentMs - lastRefused.sentMs) / spanMs : 0;
}

export interface BurstFit {
  /** Accepted requests sent before the first refused one. */
  raw: number;
  /** Seconds from the first to the last of them. */
  spanS: number;
  /** raw minus what the limit admitted at its sustained rate during that span (never below 1 when raw > 0). */
  capacity: number;
  /** False when no request of the run was refused: the burst is at least `raw`. */
  limited: boolean;
}

/**
 * A burst is sent at the probe's ceiling rate, not instantly, so the limiter refills while it
 * drains: raw = capacity + sustained × span. Subtracting the refill gives what a client could send
 * at once, the same figure whatever max_rps the probe was allowed.
 */
export function burstOf(run: readonly Sample[], sustainedRps: number | null): BurstFit {
  const sorted = [...run].sort(bySent);
  const firstRefusal = sorted.find((s) => s.answer === 'limited');
  // In the order the limiter saw them, as far as the round trips tell (probe/arrival.ts): across a
  // network a refusal can overtake acceptances sent before it, which a bucket's burst is not short of.
  const before = acceptedBeforeShut(run);
  const raw = before.length;
  // A request is recorded as sent when the harness hands it over; a sender that stalls right then
  // (a timer waking from the idle wait, a garbage collection) gets it onto the network later. At
  // the two ends of the burst that would count a stall as refill time, or not count refill: so
  // each end is taken at its latest possible departure, bounded twice: one pacing interval before
  // the request that followed it left, and the fastest round trip of the run before its answer
  // came (a request answered quickly cannot have left late).
  const gaps = sorted.slice(1).map((s, i) => s.sentMs - sorted[i]!.sentMs);
  const interval = gaps.length > 0 ? median(gaps) : 0;
  const fastestMs = Math.min(...sorted.map((s) => s.doneMs - s.sentMs));
  const order = new Map(sorted.map((s, i) => [s, i]));
  const latestDeparture = (s: Sample): number => {
    const next = sorted[order.get(s)! + 1];
    const bound = Math.min(next === undefined ? s.sentMs : next.sentMs - interval, s.doneMs - fastestMs);
    return Math.max(s.sentMs, bound);
  };
  const passed = [...before].sort(bySent);
  const endMs = raw > 0 ? latestDeparture(before[raw - 1]!) : 0;
  const firstStartMs = raw > 0 ? Math.min(latestDeparture(before[0]!), before[raw - 1]!.sentMs) : 0;
  const spanS = raw > 1 ? Math.max(0, endMs - firstStartMs) / 1000 : 0;
  const refillMs = (fromMs: number, toMs: number) =>
    sustainedRps === null ? 0 : (sustainedRps * Math.max(0, toMs - fromMs)) / 1000;
  // The capacity is at least what passed less the refill until the last admission, and less than
  // one more than that less the refill until the first refusal: a request needs a whole token, so a
  // fraction refilled meanwhile let none more through. The middle of the two: taking the first end
  // alone, rounded, read x/time/rate's burst of 40 as 38 or 39 on a busy machine (5 then 4.46 left
  // 4: a bucket of 5 at 10 req/s whose 5 passed over 54 ms, 57 of 60 virtual runs 20 ms late).
  const refusedMs = firstRefusal && raw > 0 ? Math.max(endMs, firstRefusal.sentMs) : undefined;
  const least = raw - refillMs(firstStartMs, endMs);
  const fromFirst =
    sustainedRps === null || refusedMs === undefined
      ? least
      : (least + raw + 1 - refillMs(firstStartMs, refusedMs)) / 2;
  const capacity = raw === 0 ? 0 : Math.max(1, Math.round(Math.max(fromFirst, leastSinceFull(passed, refillMs))));
  return { raw, spanS, capacity, limited: firstRefusal !== undefined };
}

/**
 * What the bucket held where it was last full. A sender that slowed below the rate (a stall, a
 * starved machine's late timers) let it fill, and what refilled past full was lost: counted from
 * the first request, that lost refill is taken away too (a bucket of 50 read as 43 by a probe
 * sending 50-70 req/s, virtually 20 ms late). What passed from any request on, less the refill from
 * its hand-over until the last admission was answered, is at most what the bucket held when it
 * came, so at most the capacity: the largest such count is where the bucket was full. The end is
 * taken at the last answer less the fastest round trip, the start at the hand-over, so that a
 * jittered trip makes each count low rather than high (a maximum of many picks the highest).
 */
function leastSinceFull(passed: readonly Sample[], refillMs: (fromMs: number, toMs: number) => number): number {
  if (passed.length < 2) return 0;
  const lastDoneMs = Math.max(...passed.map((s) => s.doneMs));
  const fastestMs = Math.min(...passed.map((s) => s.doneMs - s.sentMs));
  let most = 0;
  for (let i = 1; i < passed.length; i++)
    most = Math.max(most, passed.length - i - refillMs(passed[i]!.sentMs, lastDoneMs - fastestMs));
  return most;
}

/**
 * After a refusal, how long until a request passed again, at worst, while the limit was saturated:
 * for each refused request the time to the next accepted one. It is what a client told "no" must
 * wait at most before a retry can pass (about 1/rate for a bucket, the rest of the window for a
 * fixed window), measured, not derived.
 */
export function recoveryOf(saturated: readonly Sample[]): number | null {
  const sorted = [...saturated].sort(bySent);
  let worst: number | null = null;
  let pendingSince: number | null = null;
  for (const s of sorted) {
    if (s.answer === 'limited') pendingSince ??= s.sentMs;
    else if (s.answer === 'accepted' && pendingSince !== null) {
      const gap = s.sentMs - pendingSince;
      worst = worst === null ? gap : Math.max(worst, gap);
      pendingSince = null;
    }
  }
  return worst === null ? null : worst / 1000;
}
