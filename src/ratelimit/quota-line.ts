// What refused rounds tell past the proof's horizon. A round paced at r from rest that a limit
// refused only after t seconds had about r·t requests let through first. A limit that stores a
// quota and refills it as it goes (a bucket, or a window counting on while the round runs) lets
// through `stored + refill·t`: rounds refused at different times lie on that line, and its slope is
// the rate a client running for hours meets. A rate that held over a short horizon above that slope
// held on what was stored, not on the refill: across toxiproxy's 50 ± 10 ms with `--horizon 5`,
// 55 req/s held 5 s against a bucket of 50 per second (burst 50), and the report gave 55 as the
// sustained rate, while rounds at 68 and 61 req/s, refused after 190 and 272 requests, lay on
// 52 + 49.2·t (CI land31). Pure: the rounds in, the line (or null) out.

import { round } from './estimators.js';
import { QUOTA_AFTER_S } from './proof-loop.js';
import { letThroughSoon } from './stacked-inference.js';
import type { ProofRound } from '../report/model.js';

export interface QuotaLine {
  /** Requests the limit let through per second once the stored ones were spent (the line's slope). */
  refill_rps: number;
  /** Requests stored at a round's start (the line at t = 0). */
  stored: number;
  /**
   * How far the refill may be off, req/s, from the points' own slack alone (POINT_SLACK each, at
   * the ends of their span): the figure is claimed to within it, never closer.
   */
  refill_error_rps: number;
  /** The rounds (1-based) the line was read off, and what each let through before its first refusal. */
  points: Array<{ round: number; rps: number; began_s: number; let_through: number }>;
}

/**
 * Points further from the line than this share of what their round let through (or two requests)
 * leave no line: a limit whose quota does not grow with the round's length (a window reset at its
 * edge, a sliding count of every request) puts its refusals anywhere, not on a slope.
 */
const LINE_TOLERANCE = 0.1;

/**
 * A first refusal's count of requests let through is read to within this many either way: the
 * refused call's own place among the arrivals, and one the network's jitter reordered (toxiproxy's
 * ± 10 ms at 66 req/s moves about one). It is also the least a point may stray from the line.
 */
const POINT_SLACK = 2;

type Seen = Pick<ProofRound, 'target_rps' | 'verdict' | 'refusals_began_s'> &
  Partial<Pick<ProofRound, 'arrivals' | 'admitted_again_s'>>;

/**
 * The line through the rounds refused after a quota, or null when fewer than two such rounds at
 * different rates were refused, when they do not lie on one line, when it does not slope upward
 * below every rate refused (a refill as fast as a refused rate would not have refused it) from a
 * positive store, or when their first refusals lie too close in time to read its refill within
 * LINE_TOLERANCE (preciseEnough).
 */
export function quotaLine(rounds: readonly Seen[]): QuotaLine | null {
  const line = fitLine(rounds);
  return line !== null && preciseEnough(line) && !outlasted(line, rounds) ? line : null;
}

/**
 * Whether a round that met no refusal at all, paced above the line's refill, ran longer than the
 * line says a client at its rate lasts on the store: then the line is refuted, and a hold it would
 * call "lived on what was stored" is no such thing. The bench's bucket of 100/s before a window of
 * 200 per 10 s: rounds at 22 and 21 req/s first refused after 9.4 and 15.6 s lay on 23 stored +
 * 19.49 req/s, which had 20 req/s refused after about 45 s, and 20 req/s ran 120 s without a 429
 * (a window refuses at its edge, not on a slope). A round's seconds are its arrivals over its rate;
 * one whose arrivals are unknown tests nothing.
 */
const outlasted = (line: QuotaLine, rounds: readonly Seen[]): boolean =>
  rounds.some(
    (r) =>
      r.verdict === 'holds' &&
      r.refusals_began_s === undefined &&
      r.arrivals !== undefined &&
      r.arrivals / r.target_rps > lastsS(line, r.target_rps),
  );

/**
 * The refill read within LINE_TOLERANCE of itself: two points each POINT_SLACK off, at the ends of
 * the span of first refusals, tilt the slope by 2·POINT_SLACK / span. A bucket of 50 per second
 * across toxiproxy, rounds at 66 and 62 req/s refused 0.91 s apart, reads 49.5 ± 4.4: enough (CI
 * land34, where a fixed 1 s minimum threw the line away and the 5 s hold on the burst, 59 req/s,
 * stood as the sustained rate); at 5 req/s of refill it takes 8 s.
 */
const preciseEnough = (line: QuotaLine): boolean => line.refill_error_rps <= LINE_TOLERANCE * line.refill_rps;

/** A round's first refusal after a quota, and what it let through by then. */
interface Point {
  round: number;
  rps: number;
  began_s: number;
  let_through: number;
  held: boolean;
  /** When a call was let through again after the first refusal, if one was. */
  again_s?: number;
}

/**
 * The line through the rounds' first refusals after a quota. A failed round's is the evidence,
 * whatever share of 429s followed (a round failed on the arrivals k6 dropped while its calls waited
 * them out was refused all the same). A round that held but met its first refusal late lies on the
 * line too (a bucket of 50 per second: 60 req/s first refused after 4.9 s, 295 = 50 + 50 × 4.9,
 * where without it 65 req/s refused after 3.3 s left a single point and the 60 stood as sustained),
 * unless paced at or below the refill, where a refusal is the network's jitter, not a store spent:
 * then the line is read without the holds.
 */
function fitLine(rounds: readonly Seen[]): QuotaLine | null {
  const candidates = quotaPoints(rounds).sort((a, b) => a.began_s - b.began_s);
  const withHolds = fitWithHolds(candidates);
  if (withHolds !== null) return withHolds;
  const line = fitPoints(candidates.filter((p) => !p.held));
  // A hold paced at or below that refill, refused far below the line: the network's jitter, or a
  // slower limit whose store ran out, which the later points alone may show (envelopeLine).
  const strayHold = line === null || candidates.some((p) => p.held && offLine(line, p) < 0);
  return (strayHold ? envelopeLine(candidates) : null) ?? line;
}

/**
 * The line through the later points, when the earlier ones were all refused sooner than it allows:
 * another, stricter limit's refusals, not points off it. A counter of 50 per 10 s (counting refused
 * requests) before a bucket of 4 per second with a store of 60: rounds the counter refused after 5.6
 * and 7.7 s lay with 5 req/s refused after 59 s on 4 + 4.94·t, and 4.5 req/s, held but refused
 * after 118 s, 56 under it, stood as sustained; the two later ones lie on 59 + 4·t. Only points of
 * rounds let through again soon after their refusal (refilled): a window stays shut to its edge and
 * puts its refusals anywhere. Null when no such line is found. `points` by first refusal.
 */
function envelopeLine(points: readonly Point[]): QuotaLine | null {
  for (let first = 1; points.length - first >= 2; first++) {
    const later = points.slice(first);
    if (!later.every(refilled)) continue;
    const line = fitWithHolds(later) ?? fitPoints(later.filter((p) => !p.held));
    if (line !== null && points.slice(0, first).every((p) => offLine(line, p) < 0)) return line;
  }
  return null;
}

/** The line through `points`, holds included, when every hold among them ran above its refill; else null. */
function fitWithHolds(points: readonly Point[]): QuotaLine | null {
  const line = fitPoints(points);
  return line !== null && points.every((p) => !p.held || p.rps > line.refill_rps) ? line : null;
}

/** Whether a point's round was let through again soon after its first refusal: a limit refilling as it refuses. */
const refilled = (p: Point): boolean => letThroughSoon(p.began_s, p.again_s);

/** What the line says a round had let through by its first refusal. */
const onLine = (line: Pick<QuotaLine, 'stored' | 'refill_rps'>, p: Pick<Point, 'began_s'>): number =>
  line.stored + line.refill_rps * p.began_s;

/** How far a point lies above the line, beyond what its count may be off (negative: below it by more). */
function offLine(line: Pick<QuotaLine, 'stored' | 'refill_rps'>, p: Pick<Point, 'began_s' | 'let_through'>): number {
  const slack = Math.max(POINT_SLACK, LINE_TOLERANCE * p.let_through);
  const off = p.let_through - onLine(line, p);
  return Math.abs(off) <= slack ? 0 : off;
}

const quotaPoints = (rounds: readonly Seen[]): Point[] =>
  rounds.flatMap((r, i): Point[] =>
    r.verdict !== 'inconclusive' && r.refusals_began_s !== undefined && r.refusals_began_s >= QUOTA_AFTER_S
      ? [
          {
            round: i + 1,
            rps: r.target_rps,
            began_s: r.refusals_began_s,
            let_through: r.target_rps * r.refusals_began_s,
            held: r.verdict === 'holds',
            ...(r.admitted_again_s !== undefined ? { again_s: r.admitted_again_s } : {}),
          },
        ]
      : [],
  );

function fitPoints(points: readonly Point[]): QuotaLine | null {
  if (new Set(points.map((p) => p.rps)).size < 2) return null;
  const times = points.map((p) => p.began_s);
  const spanS = Math.max(...times) - Math.min(...times);
  if (!(spanS > 0)) return null;
  const n = points.length;
  const meanT = times.reduce((a, b) => a + b, 0) / n;
  const meanN = points.reduce((a, p) => a + p.let_through, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.began_s - meanT) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.began_s - meanT) * (p.let_through - meanN), 0);
  const slope = sxy / sxx;
  const stored = meanN - slope * meanT;
  if (!(slope > 0) || !(stored > 0) || slope >= Math.min(...points.map((p) => p.rps))) return null;
  if (points.some((p) => offLine({ stored, refill_rps: slope }, p) !== 0)) return null;
  return {
    refill_rps: round(slope, 2),
    stored: Math.round(stored),
    refill_error_rps: round((2 * POINT_SLACK) / spanS, 2),
    points: [...points]
      .sort((a, b) => a.round - b.round)
      .map((p) => ({
        round: p.round,
        rps: p.rps,
        began_s: p.began_s,
        let_through: Math.round(p.let_through),
      })),
  };
}

/**
 * The rounds' line when it binds below `heldRps`, the highest rate a round held: that hold lasted on
 * what the limit stored, and the refill is the rate a client running longer meets. Null when there
 * is no line, or its refill is at or above the hold (nothing held above it to correct).
 */
export function lineBelow(rounds: readonly Seen[], heldRps: number | null): QuotaLine | null {
  if (heldRps === null) return null;
  const line = quotaLine(rounds);
  return line !== null && line.refill_rps < heldRps ? line : null;
}

/**
 * A rate to run once more, rested, when the search's hold at `heldRps` may have lasted on what the
 * limit stored and the rounds cannot tell, so that its first refusal lands early enough to read the
 * refill (its point also tests the line: off it, there is none, and the hold stands as held over the
 * horizon only). Null when no such round is needed or none would land early enough.
 * - The refused rounds lie on a line below the hold, too close in time to read it (preciseEnough):
 *   paced fast enough that the line has it refused twice the span needed before their last (a
 *   quarter more at least), and no sooner than half as long again as QUOTA_AFTER_S (a quota met,
 *   not a rate refused from the start).
 * - One round above the hold was refused after a quota, and nothing else was: a bucket of 50 per
 *   second, 56 req/s held 5 s on its store beside 62 refused after 4.1 s, and 56 stood as
 *   sustained. Then a quarter faster than that round, or twice as far above it as the hold is
 *   below, whichever is more: refused sooner, the two lie far enough apart for most refills.
 */
export function spreadingRps(rounds: readonly Seen[], heldRps: number | null): number | null {
  if (heldRps === null) return null;
  const line = fitLine(rounds);
  if (line === null) {
    const points = quotaPoints(rounds);
    const only = points.length === 1 && !points[0]!.held && points[0]!.rps > heldRps ? points[0]! : null;
    return only === null ? null : round(Math.max(1.25 * only.rps, only.rps + 2 * (only.rps - heldRps)), 1);
  }
  if (preciseEnough(line) || line.refill_rps >= heldRps) return null;
  const neededS = (2 * POINT_SLACK) / (LINE_TOLERANCE * line.refill_rps);
  const lastS = Math.max(...line.points.map((p) => p.began_s));
  const atS = Math.max(1.5 * QUOTA_AFTER_S, lastS - 2 * neededS);
  if (lastS - atS < 1.25 * neededS) return null;
  return round(line.refill_rps + line.stored / atS, 1);
}

/** How long a client paced at `rps` lasts on the line's store before its first refusal, seconds (Infinity at or below its refill). */
const lastsS = (line: QuotaLine, rps: number): number =>
  rps <= line.refill_rps ? Infinity : line.stored / (rps - line.refill_rps);

/** A hold on the store in words: "on what the limit stored: rounds 3 and 4, …, so a client paced at 55 req/s is refused after about 9 s". */
export const heldOnStoreText = (line: QuotaLine, heldRps: number): string =>
  `on what the limit stored: ${lineText(line)}, so a client paced at ${heldRps} req/s is refused after about ${Math.round(lastsS(line, heldRps))} s`;

/** The line in words: "rounds 3 and 4, refused after about 190 and 272 requests, lie on 52 stored + 49.25 ± 2.71 req/s refilled". */
export function lineText(line: QuotaLine): string {
  const rounds = line.points.map((p) => p.round);
  const counts = line.points.map((p) => p.let_through);
  const and = (xs: readonly number[]) => `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
  return `rounds ${and(rounds)}, refused after about ${and(counts)} requests, lie on ${line.stored} stored + ${line.refill_rps} ± ${line.refill_error_rps} req/s refilled`;
}
