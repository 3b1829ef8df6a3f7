// A sliding log read from two edges (silent-window.ts for a silent long window, advertised.ts for
// one a Retry-After or RateLimit reset pointed at): the limit came back whole a period after the
// drain's first request; the rest of it, sent a little after the first request at that edge, took
// every slot; a period after that first request its slot alone freed, and only it passed. A window
// that resets would let the whole limit through at its second edge; a log frees one at a time.
// Times are when the service saw each request (arrival.ts seenMs).

import { midpoint, type Bracket } from '../identify.js';
import { round } from '../estimators.js';
import type { SlidingWindowModel } from '../limiters/index.js';

/** Half-width of a sliding log's period, as a share of it, beyond which it is not claimed. */
const LOG_PRECISION = 0.01;

/**
 * What a limit that frees one request at a time lets through at the clump: the first ping's, and
 * one more freed since (the clump follows it by a tenth of the wait that freed the first).
 */
export const ONE_AT_A_TIME = 2;

const fmt = (ms: number) => `${round(ms / 1000, 1)} s`;

/**
 * A sliding log: each slot frees one period after the request that took it. Its first edge came a
 * period after the drain's first request; the clump after it took every slot but the first edge's
 * own, which freed a period after that request (the "second edge"); then only what that ping had
 * held passed. The two periods, each read between a refused ping and the one that passed, must
 * agree; the period is where they overlap.
 */
export function slidingLog(
  limit: number,
  fromDrain: Bracket,
  edge2: Bracket,
  firstEdgeSeenMs: number,
  whole: number,
): { model: SlidingWindowModel; evidence: string[] } | undefined {
  const fromEdge: Bracket = { lo: edge2.lo - firstEdgeSeenMs, hi: edge2.hi - firstEdgeSeenMs };
  const period: Bracket = { lo: Math.max(fromDrain.lo, fromEdge.lo), hi: Math.min(fromDrain.hi, fromEdge.hi) };
  // Only the first edge's own slot (and a ping or two it let in) freed by then: not a window that slides in steps.
  if (period.hi < period.lo || whole > ONE_AT_A_TIME) return undefined;
  const sized = midpoint(period);
  if (sized.precision > LOG_PRECISION) return undefined;
  const model: SlidingWindowModel = {
    kind: 'sliding-window',
    limit,
    period_s: round(sized.value / 1000, 3),
    // The pings refused before the second edge did not keep that slot from freeing.
    counts_refused: false,
  };
  return {
    model,
    evidence: [
      `the limit came back ${fmt(fromDrain.lo)}–${fmt(fromDrain.hi)} after the drain's first request and, full again, ${fmt(fromEdge.lo)}–${fmt(fromEdge.hi)} after the request that passed at that edge, letting only ${whole} through: each slot frees a period after the request that took it, a sliding log of ${limit} per ${model.period_s} s`,
    ],
  };
}
