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
import type { ProofRound } from '../report/model.js';

export interface QuotaLine {
  /** Requests the limit let through per second once the stored ones were spent (the line's slope). */
  refill_rps: number;
  /** Requests stored at a round's start (the line at t = 0). */
  stored: number;
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
 * The line through the rounds refused after a quota, or null when fewer than two such rounds at
 * different rates were refused at least QUOTA_AFTER_S apart, when they do not lie on one line, or
 * when it does not slope upward below every rate refused (a refill as fast as a refused rate would
 * not have refused it) from a positive store.
 */
export function quotaLine(
  rounds: readonly Pick<ProofRound, 'target_rps' | 'verdict' | 'refusals_began_s'>[],
): QuotaLine | null {
  // A failed round's first refusal is the evidence, whatever share of 429s followed (a round failed
  // on the arrivals k6 dropped while its calls waited them out was refused all the same).
  const points = rounds.flatMap((r, i) =>
    r.verdict === 'fails' && r.refusals_began_s !== undefined && r.refusals_began_s >= QUOTA_AFTER_S
      ? [
          {
            round: i + 1,
            rps: r.target_rps,
            began_s: r.refusals_began_s,
            let_through: r.target_rps * r.refusals_began_s,
          },
        ]
      : [],
  );
  if (new Set(points.map((p) => p.rps)).size < 2) return null;
  const times = points.map((p) => p.began_s);
  if (Math.max(...times) - Math.min(...times) < QUOTA_AFTER_S) return null;
  const n = points.length;
  const meanT = times.reduce((a, b) => a + b, 0) / n;
  const meanN = points.reduce((a, p) => a + p.let_through, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.began_s - meanT) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.began_s - meanT) * (p.let_through - meanN), 0);
  const slope = sxy / sxx;
  const stored = meanN - slope * meanT;
  if (!(slope > 0) || !(stored > 0) || slope >= Math.min(...points.map((p) => p.rps))) return null;
  const off = (p: (typeof points)[number]) => Math.abs(p.let_through - (stored + slope * p.began_s));
  if (points.some((p) => off(p) > Math.max(2, LINE_TOLERANCE * p.let_through))) return null;
  return {
    refill_rps: round(slope, 2),
    stored: Math.round(stored),
    points: points.map((p) => ({ ...p, let_through: Math.round(p.let_through) })),
  };
}

/**
 * The rounds' line when it binds below `heldRps`, the highest rate a round held: that hold lasted on
 * what the limit stored, and the refill is the rate a client running longer meets. Null when there
 * is no line, or its refill is at or above the hold (nothing held above it to correct).
 */
export function lineBelow(rounds: Parameters<typeof quotaLine>[0], heldRps: number | null): QuotaLine | null {
  if (heldRps === null) return null;
  const line = quotaLine(rounds);
  return line !== null && line.refill_rps < heldRps ? line : null;
}

/** How long a client paced at `rps` lasts on the line's store before its first refusal, seconds (Infinity at or below its refill). */
const lastsS = (line: QuotaLine, rps: number): number =>
  rps <= line.refill_rps ? Infinity : line.stored / (rps - line.refill_rps);

/** A hold on the store in words: "on what the limit stored: rounds 3 and 4, …, so a client paced at 55 req/s is refused after about 9 s". */
export const heldOnStoreText = (line: QuotaLine, heldRps: number): string =>
  `on what the limit stored: ${lineText(line)}, so a client paced at ${heldRps} req/s is refused after about ${Math.round(lastsS(line, heldRps))} s`;

/** The line in words: "rounds 3 and 4, refused after about 190 and 272 requests, lie on 52 stored + 49.2 req/s". */
export function lineText(line: QuotaLine): string {
  const rounds = line.points.map((p) => p.round);
  const counts = line.points.map((p) => p.let_through);
  const and = (xs: readonly number[]) => `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
  return `rounds ${and(rounds)}, refused after about ${and(counts)} requests, lie on ${line.stored} stored + ${line.refill_rps} req/s refilled`;
}
