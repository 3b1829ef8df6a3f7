// Where a counter that counts every request (HAProxy's usual recipe) crossed its limit, from the
// probe's own requests: every request counts the same, let through or not, so what the limit did
// depends only on when each came and how many came before it. quiet-ramp.ts and
// next-window-ramp.ts time the counter from these crossings.
//
// Every time is when the service saw the request (arrival.ts), every count the probe's own requests.

import { round } from '../estimators.js';
import type { Bracket } from '../identify.js';
import { PERIOD_PRECISION } from './period-bracket.js';
import type { Sample } from '../types.js';
import { phaseS } from './advertised.js';
import { seenMs } from './arrival.js';
import type { RampFindings } from './counter-ramp.js';
import type { Probe } from './probe.js';

/** The probe's requests (and the set-up ones, counted before everything) seen before each moment. */
export class Counts {
  private readonly seen: number[];
  constructor(
    samples: readonly Sample[],
    private readonly setup: number,
  ) {
    this.seen = samples.map(seenMs).sort((a, b) => a - b);
  }
  /** Requests seen before `ms` (not at it), the set-up ones included. */
  before(ms: number): number {
    let lo = 0;
    let hi = this.seen.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.seen[mid]! < ms) lo = mid + 1;
      else hi = mid;
    }
    return this.setup + lo;
  }
  /** When before() is `n`: after the n-th request was seen, up to the next one. */
  spanOf(n: number): { lo: number; hi: number } {
    const k = n - this.setup;
    return {
      lo: k <= 0 ? Number.NEGATIVE_INFINITY : (this.seen[k - 1] ?? Number.POSITIVE_INFINITY),
      hi: k < 0 ? Number.NEGATIVE_INFINITY : (this.seen[k] ?? Number.POSITIVE_INFINITY),
    };
  }
}

/** A clump's last admission and first refusal after it: where the line was, from both sides. */
export interface Crossing {
  admitted: number;
  refused: number;
}

/** The last admission of the probe's requests so far and the first refusal sent after it. */
export function lastCrossing(samples: readonly Sample[]): Crossing | undefined {
  const sorted = [...samples].sort((a, b) => a.sentMs - b.sentMs);
  const admitted = sorted.filter((s) => s.answer === 'accepted').at(-1);
  const refused = admitted && sorted.find((s) => s.sentMs > admitted.sentMs && s.answer === 'limited');
  return admitted && refused ? { admitted: seenMs(admitted), refused: seenMs(refused) } : undefined;
}

/**
 * How far the rate reported for `limit` per a window claimed at `windowS` may be off, relative,
 * when the window lies in `bracket` (ms): from the rate as reported (to 0.01 req/s, window-path.ts
 * windowFigures) to the rate at the bracket's far end, rounded up, never less than a period's own
 * (PERIOD_PRECISION). A claim near the bracket's long end (never faster than the limiter) is that
 * far from its short end: stated ±1.5 %, 50 per 10.156 s left 10.00–10.19 s, and the truth, 5 req/s,
 * lay 1.6 % above the 4.92 read (a loaded machine's fit, its pings spent at ±0.9 %).
 */
export function claimPrecision(limit: number, windowS: number, bracket: Bracket): number {
  const reported = round(limit / windowS, 2);
  const fastest = (limit * 1000) / bracket.lo;
  const slowest = (limit * 1000) / bracket.hi;
  const off = Math.max(PERIOD_PRECISION, fastest / reported - 1, 1 - slowest / reported);
  return Math.ceil(off * 10_000) / 10_000;
}

/**
 * A sliding-window counter of `limit` per `windowMs` counting every request, its edge at `edgeMs`,
 * claimed with `evidence`: what follows a timing that held. `bracket`: where the window lies (ms),
 * which the stated precision covers (claimPrecision).
 */
export function countingEvery(
  probe: Probe,
  limit: number,
  windowMs: number,
  edgeMs: number,
  evidence: string,
  bracket: Bracket,
): RampFindings {
  const windowS = round(windowMs / 1000, 3);
  return {
    precision: claimPrecision(limit, windowS, bracket),
    model: {
      kind: 'sliding-counter',
      limit,
      window_s: windowS,
      phase_s: phaseS(probe, { lo: edgeMs, hi: edgeMs }, windowS),
      counts_refused: true,
    },
    evidence: [
      `${evidence}: a sliding-window counter of ${limit} per ${windowS} s; its edge came about one window after the drain began: a period opened by the client's first request, as HAProxy's stick table weighs it, reads the same`,
    ],
    notes: [],
  };
}
