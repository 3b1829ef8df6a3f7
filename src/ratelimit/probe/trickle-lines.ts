// A silent sliding-window counter read off the lines its admissions follow after the drain, once
// pings keep it saturated (pure functions of the samples; trickle-watch.ts gathers them). Saturated,
// a counter lets a request through whenever the weighted count drops under its limit, so the
// admissions so far (N, the set-up requests included) rise on a line of slope prev / W, prev being
// what the window before held; the line is L − 1 where a window opens.
//
// Its drain straddled the edge E0 after c1 admissions (the window before it empty before the
// probe): the window E0 opened weighs c1, so from the shut on it trickles back like a bucket, at
// c1 / W, until the next edge E1 = E0 + W; there the window it weighs is the one that held the rest
// of the drain and the trickle (c2), and the rate rises to c2 / W. The two lines meet at E1:
//     W = N(E1) / (β1 + β2),
// tested by the drain: it had let c1 = β1 W through before E0 = E1 − W. A bucket's rate never
// changes; a fixed window or a log comes back in clumps, not on two lines.
//
// Its drain ended before the edge: nothing passes until the edge, then one line of slope D / W
// from L − 1 there, where a bucket's line starts at the shut. A line that starts well after the
// shut, through pings refused in between, is such a counter's, its window D / β.

import { round } from '../estimators.js';
import type { SlidingCounterModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { seenMs } from './arrival.js';
import type { DrainFigures } from './recover.js';

/** The rise of the rate at the edge, at least, and in standard errors of the two slopes: below either the two lines are not told apart. */
const MIN_RISE = 1.03;
const RISE_ERRORS = 4;
/** Saturated points on each line, at least. */
const MIN_POINTS = 12;
/** Each line's span, at least, ms. */
const MIN_SPAN_MS = 1_500;
/** How far a line's points may scatter about it (root mean square), in admissions. */
const MAX_SCATTER = 1.5;
/** The window's half-width (two standard errors), as a share of it, beyond which it is not claimed: the limit and window within 2 %. */
const PRECISION = 0.015;
/** Standard errors a figure is claimed to. */
const SURE = 2;
/** How far the drain's count before E0 may be from β1 W, in admissions, beyond what E0's uncertainty allows. */
const COUNT_SLACK = 3;

/**
 * An acceptance the limiter saw right after a refusal: the count fell under the limit between the
 * two, so the point is their middle, sure to half the time between them (pings a round trip apart
 * leave a wide gap, pings on a schedule a narrow one); and how many it had let through before it.
 */
export interface SaturatedPoint {
  t: number;
  halfWidthMs: number;
  before: number;
}

/** A point's time is never surer than this, ms: when the limiter saw a ping is its round trip's middle, to a leg's jitter. */
const TIME_FLOOR_MS = 5;

export interface Line {
  /** Admissions per ms. */
  slope: number;
  /** The line's value at t = 0. */
  at0: number;
  /** Standard error of the slope. */
  slopeError: number;
  /** Root mean square of the points about it, in admissions. */
  scatter: number;
  points: number;
  fromMs: number;
  toMs: number;
  /** The points' mean time: the line's value is surest there. */
  meanMs: number;
}

export interface Kink {
  before: Line;
  after: Line;
  /** Where the lines meet: the edge E1, ms. */
  edgeMs: number;
}

export type TrickleReading =
  | {
      model: SlidingCounterModel;
      /** The edge the window holding the drain (or its part after E0) opened at, ms: the counter's phase. */
      edgeMs: number;
      evidence: string;
    }
  | {
      model: null;
      why: string;
      /** Its rate rose after the drain, significantly: no bucket's, though no counter could be sized from it. */
      rose?: true;
      /** One line from the shut on, for as long as a bucket of the drain's size refills: as a bucket's trickle goes. */
      bucketLike?: true;
    };

/**
 * The admissions the limiter saw right after refusals, after `fromMs` (the drain's shut), with the
 * count it had let through before each (`setup`: the set-up requests it counted before the probe).
 */
export function saturatedAfter(samples: readonly Sample[], fromMs: number, setup: number): SaturatedPoint[] {
  const seen = samples
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .sort((a, b) => seenMs(a) - seenMs(b));
  const points: SaturatedPoint[] = [];
  let admitted = setup;
  for (const [i, s] of seen.entries()) {
    if (s.answer !== 'accepted') continue;
    const refused = seen[i - 1];
    if (seenMs(s) > fromMs && refused?.answer === 'limited')
      points.push({
        t: (seenMs(refused) + seenMs(s)) / 2,
        halfWidthMs: (seenMs(s) - seenMs(refused)) / 2,
        before: admitted,
      });
    admitted++;
  }
  return points;
}

/** Running sums of the points' weights and weighted moments: any run's line from two of them, in O(1). */
interface Sums {
  w: number;
  t: number;
  a: number;
  tt: number;
  ta: number;
  aa: number;
}

/** Each point weighed by how sure its time is. */
const weightOf = (p: SaturatedPoint) => 1 / Math.max(p.halfWidthMs, TIME_FLOOR_MS) ** 2;

function prefixSums(points: readonly SaturatedPoint[]): Sums[] {
  const sums: Sums[] = [{ w: 0, t: 0, a: 0, tt: 0, ta: 0, aa: 0 }];
  for (const p of points) {
    const s = sums[sums.length - 1]!;
    const w = weightOf(p);
    sums.push({
      w: s.w + w,
      t: s.t + w * p.t,
      a: s.a + w * p.before,
      tt: s.tt + w * p.t * p.t,
      ta: s.ta + w * p.t * p.before,
      aa: s.aa + w * p.before * p.before,
    });
  }
  return sums;
}

/** The weighted least-squares line through `points[from, to)`, and its weighted sum of squared residuals. */
function lineOf(
  points: readonly SaturatedPoint[],
  sums: readonly Sums[],
  from: number,
  to: number,
): Line & { sse: number } {
  const hi = sums[to]!;
  const lo = sums[from]!;
  const n = to - from;
  const sw = hi.w - lo.w;
  const mt = (hi.t - lo.t) / sw;
  const ma = (hi.a - lo.a) / sw;
  // Centred moments, from the raw ones.
  const stt = Math.max(0, hi.tt - lo.tt - sw * mt * mt);
  const sta = hi.ta - lo.ta - sw * mt * ma;
  const saa = Math.max(0, hi.aa - lo.aa - sw * ma * ma);
  const slope = stt > 0 ? sta / stt : 0;
  const sse = Math.max(0, saa - slope * sta);
  return {
    slope,
    at0: ma - slope * mt,
    slopeError: n > 2 && stt > 0 ? Math.sqrt(sse / (n - 2) / stt) : Infinity,
    scatter: Math.sqrt(sse / sw),
    points: n,
    fromMs: points[from]!.t,
    toMs: points[to - 1]!.t,
    meanMs: mt,
    sse,
  };
}

/** The split of the points into two lines that fits them best, where they meet between the two; undefined with too few points. */
export function kinkOf(points: readonly SaturatedPoint[]): Kink | undefined {
  const sums = prefixSums(points);
  let best: { kink: Kink; sse: number } | undefined;
  for (let i = MIN_POINTS; i <= points.length - MIN_POINTS; i++) {
    const before = lineOf(points, sums, 0, i);
    const after = lineOf(points, sums, i, points.length);
    if (after.slope <= before.slope) continue;
    const edgeMs = (before.at0 - after.at0) / (after.slope - before.slope);
    // The lines meet between the last point of the first and the first of the second, give or take a step.
    if (edgeMs < before.toMs - 1 / before.slope || edgeMs > after.fromMs + 1 / after.slope) continue;
    const sse = before.sse + after.sse;
    if (!best || sse < best.sse) best = { kink: { before, after, edgeMs }, sse };
  }
  return best?.kink;
}

/** The standard error of a line's value at `t`. */
const valueError = (line: Line, t: number): number =>
  Math.hypot(line.scatter / Math.sqrt(line.points), line.slopeError * (t - line.meanMs));

const perS = (slope: number) => round(slope * 1000, 2);
const fmtS = (ms: number) => `${round(ms / 1000, 2)} s`;

/** The drain the trickle followed: its refusal, first request, and what passed (`limit`, the set-up requests included: D). */
type DrainTrickle = Pick<DrainFigures, 'refusal' | 'firstMs' | 'limit' | 'accepted'>;

/**
 * The counter the trickle after the drain shows, when it shows one: two lines meeting at an edge
 * (a drain that straddled the edge before), or one that starts well after the shut (a drain that
 * ended before an edge); else why not.
 */
export function counterFromTrickle(
  samples: readonly Sample[],
  drain: DrainTrickle,
  fromMs = seenMs(drain.refusal),
): TrickleReading {
  const setup = drain.limit - drain.accepted;
  const points = saturatedAfter(samples, fromMs, setup);
  const accepted = samples
    .filter((s) => s.client === 'primary' && s.answer === 'accepted')
    .map(seenMs)
    .sort((a, b) => a - b);
  const admittedBy = (ms: number) => setup + accepted.filter((t) => t <= ms).length;
  const kink = kinkOf(points);
  const risen = kink && riseOf(kink);
  if (kink && risen === undefined) {
    const reading = straddled(samples, drain, kink, admittedBy);
    return reading.model ? reading : { ...reading, rose: true };
  }
  const late = lateStart(samples, drain, points, admittedBy);
  if (late.model) return late;
  return { model: null, why: risen ?? late.why };
}

/** Why the two lines are not told from one; undefined when they are. */
function riseOf({ before, after, edgeMs }: Kink): string | undefined {
  const rise = after.slope / before.slope;
  if (rise < MIN_RISE || after.slope - before.slope < RISE_ERRORS * Math.hypot(before.slopeError, after.slopeError))
    return `its rate rose by ${round((rise - 1) * 100, 1)} % at ${fmtS(edgeMs)} at most, not told from none`;
  return undefined;
}

function straddled(
  samples: readonly Sample[],
  drain: DrainTrickle,
  kink: Kink,
  admittedBy: (ms: number) => number,
): TrickleReading {
  const no = (why: string): TrickleReading => ({ model: null, why });
  const { before, after, edgeMs } = kink;
  const shutMs = seenMs(drain.refusal);
  if (Math.min(before.toMs - before.fromMs, after.toMs - after.fromMs) < MIN_SPAN_MS)
    return no(`its rate rose at ${fmtS(edgeMs)}, but too little of either rate was watched`);
  if (Math.max(before.scatter, after.scatter) > MAX_SCATTER)
    return no(`its admissions scatter about the two rates (by ${round(Math.max(before.scatter, after.scatter), 1)})`);
  const upToEdge = admittedBy(edgeMs);
  const slopes = before.slope + after.slope;
  const windowMs = upToEdge / slopes;
  // The window's uncertainty, two standard errors: of the slopes, and of the count at the edge as
  // far as the edge's place is unsure (where two lines, each known to its error there, meet).
  const edgeUnsureMs =
    (SURE * Math.hypot(valueError(before, edgeMs), valueError(after, edgeMs))) / (after.slope - before.slope);
  const countUnsure = (admittedBy(edgeMs + edgeUnsureMs) - admittedBy(edgeMs - edgeUnsureMs)) / 2;
  const precision = (SURE * Math.hypot(before.slopeError, after.slopeError)) / slopes + countUnsure / upToEdge;
  if (precision > PRECISION)
    return no(
      `its rate rose at ${fmtS(edgeMs)}, but the window, ${fmtS(windowMs)}, rests on rates good to ±${round(precision * 100, 1)} % only`,
    );
  const c1 = before.slope * windowMs;
  const firstEdgeMs = edgeMs - windowMs;
  const drainStartMs = seenMs(samples.find((s) => s.phase === 'drain' && s.sentMs === drain.firstMs) ?? drain.refusal);
  if (firstEdgeMs < drainStartMs - edgeUnsureMs || firstEdgeMs > shutMs + edgeUnsureMs)
    return no(
      `the two rates put the edge before at ${fmtS(firstEdgeMs)}, outside the drain (${fmtS(drainStartMs)}–${fmtS(shutMs)})`,
    );
  // The drain's count before that edge, as far as the edge's place is unsure: β1 W must be in it.
  const unsureMs = edgeUnsureMs + precision * windowMs;
  if (c1 < admittedBy(firstEdgeMs - unsureMs) - COUNT_SLACK || c1 > admittedBy(firstEdgeMs + unsureMs) + COUNT_SLACK)
    return no(
      `the first rate says ${Math.round(c1)} passed before the edge at ${fmtS(firstEdgeMs)}, the drain had let ${admittedBy(firstEdgeMs)} through by then`,
    );
  // The window after E0 held the limit by E1, saturated: the second rate is L / W, its sustained
  // rate read straight off that line (the first line at E0, L − 1, says the same to its error).
  const limit = Math.round(after.slope * windowMs);
  const fromFirst = before.at0 + before.slope * firstEdgeMs + 1;
  if (Math.abs(fromFirst - limit) > COUNT_SLACK + before.slope * unsureMs)
    return no(
      `the second rate says a limit of ${limit}, the first line ${Math.round(fromFirst)} where the window opened`,
    );
  return {
    model: counterOf(limit, windowMs),
    edgeMs: firstEdgeMs,
    evidence:
      `after the drain shut, the limit let one request back every ${round(1 / before.slope, 1)} ms (${perS(before.slope)} req/s) until ${fmtS(edgeMs)}, ` +
      `then one every ${round(1 / after.slope, 1)} ms (${perS(after.slope)} req/s), through pings refused in between: the rate rose at an edge, as a window weighing the one before does (a bucket's never changes); ` +
      `the ${upToEdge} let through by that edge over the two rates give a window of ${fmtS(windowMs)}, its edge before at ${fmtS(firstEdgeMs)}, inside the drain, where the drain had let ${admittedBy(firstEdgeMs)} through (the first rate says ${Math.round(c1)}): ` +
      `a sliding-window counter of ${limit} per ${round(windowMs / 1000, 3)} s whose drain straddled an edge`,
  };
}

/** A line that starts this many of its steps after the shut, at least, and LATE_MIN_MS: well past where a bucket's starts (its pings' lag, a third of a step, and jitter). */
const LATE_STEPS = 4;
const LATE_MIN_MS = 150;
/** Pings refused between the shut and the line's start, at least: the limit was seen shut there. */
const LATE_REFUSED = 3;

function lateStart(
  samples: readonly Sample[],
  drain: DrainTrickle,
  points: readonly SaturatedPoint[],
  admittedBy: (ms: number) => number,
): TrickleReading {
  const no = (why: string): TrickleReading => ({ model: null, why });
  if (points.length < MIN_POINTS)
    return no(`too few of its admissions after the drain were saturated (${points.length})`);
  const line = lineOf(points, prefixSums(points), 0, points.length);
  if (line.slope <= 0 || line.toMs - line.fromMs < MIN_SPAN_MS || line.scatter > MAX_SCATTER)
    return no(`its admissions after the drain lie on no one line (${points.length} saturated)`);
  const shutMs = seenMs(drain.refusal);
  // Where the line is the drain's count less one: the window's edge, or a bucket's shut.
  const startMs = (drain.limit - 1 - line.at0) / line.slope;
  const stepMs = 1 / line.slope;
  const lateMs = startMs - shutMs;
  const refusedBetween = samples.filter(
    (s) => s.client === 'primary' && s.answer === 'limited' && seenMs(s) > shutMs && seenMs(s) < startMs - stepMs,
  ).length;
  const unsureMs = (SURE * valueError(line, startMs)) / line.slope;
  // Shut until the edge: nothing passed between (a bucket drained again after a wait, its line
  // moved on by what that drain took, would extrapolate back past the first shut too).
  const passedBetween = admittedBy(startMs - stepMs) - admittedBy(shutMs);
  if (
    lateMs - unsureMs < Math.max(LATE_STEPS * stepMs, LATE_MIN_MS) ||
    refusedBetween < LATE_REFUSED ||
    passedBetween > 0
  ) {
    const why = `its admissions after the drain lie on one line of ${perS(line.slope)} req/s from ${fmtS(startMs)}, the shut at ${fmtS(shutMs)}: a bucket's, or a counter's edge at the shut`;
    // From the shut, to within the line's uncertainty and a step or two, and on past a refill.
    const fromShut = Math.abs(lateMs) <= unsureMs + Math.max(LATE_STEPS * stepMs, LATE_MIN_MS);
    const pastRefill = line.toMs >= shutMs + drain.limit * stepMs;
    return fromShut && pastRefill ? { model: null, why, bucketLike: true } : no(why);
  }
  const windowMs = drain.limit / line.slope;
  const precision = (SURE * line.slopeError) / line.slope;
  if (precision > PRECISION) return no(`its rate after the drain is known to ±${round(precision * 100, 1)} % only`);
  return {
    model: counterOf(drain.limit, windowMs),
    edgeMs: startMs,
    evidence:
      `after the drain shut at ${fmtS(shutMs)}, ${refusedBetween} pings were refused until ${fmtS(startMs)}, then the limit let one back every ${round(stepMs, 1)} ms (${perS(line.slope)} req/s) on a line from there, through pings refused in between: ` +
      `shut until an edge, then a window weighing the ${drain.limit} drained by its share still to come (a bucket refills from the shut on): a sliding-window counter of ${drain.limit} per ${round(windowMs / 1000, 3)} s`,
  };
}

const counterOf = (limit: number, windowMs: number): SlidingCounterModel => ({
  kind: 'sliding-counter',
  limit,
  window_s: round(windowMs / 1000, 3),
  phase_s: 0,
  // Pinged above its rate and still let back on its line: the refused pings did not count.
  counts_refused: false,
});
