// Which numbers of a run are figures with noise, and how each is judged: what kind of regression
// it is, which way is worse, and the smallest change worth a word. The floors keep a band of
// near-identical values (MAD 0) from flagging a 0.1 ms wobble; the values are judgement, written
// down once here and in docs/history.md.

import type { RegressionKind } from '../report/sections/since/model.js';

export interface FigureRule {
  kind: RegressionKind;
  unit: string;
  /** Which way is a regression: latency gets worse up, a rate limit changes either way. */
  worse: 'up' | 'down' | 'both';
  /** A change smaller than this many units is never flagged. */
  absFloor: number;
  /** Nor one smaller than this fraction of the stored median. */
  relFloor: number;
}

const LATENCY = (absFloor: number, relFloor: number): FigureRule => ({
  kind: 'latency',
  unit: 'ms',
  worse: 'up',
  absFloor,
  relFloor,
});

/** By the figure's name, as a record stores it (a check's numeric fact, a k6 or rate-limit figure). */
export const FIGURE_RULES: Record<string, FigureRule> = {
  // business.valid-token-accepted: one answer per endpoint on each run, the quicker one kept.
  // One sample is at the mercy of a busy machine, so only a doubling (and 20 ms) counts.
  latency_ms: LATENCY(20, 1),
  // k6: thousands of samples per run, so the median is steady; a 5 s run's p99 rests on a few
  // dozen answers and moved 4 → 35 ms between two steady runs on loopback, hence its wide floor.
  p50_ms: LATENCY(10, 0.5),
  p95_ms: LATENCY(25, 0.5),
  p99_ms: LATENCY(50, 1),
  error_rate: { kind: 'latency', unit: '', worse: 'up', absFloor: 0.01, relFloor: 0 },
  rate_per_s: { kind: 'latency', unit: '/s', worse: 'down', absFloor: 1, relFloor: 0.2 },
  // ratelimit.limit-enforced, and the ratelimit command's estimate.
  accepted_before_limit: { kind: 'rate_limit', unit: '', worse: 'both', absFloor: 5, relFloor: 0.25 },
  sustained_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
  target_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
  burst: { kind: 'rate_limit', unit: '', worse: 'both', absFloor: 2, relFloor: 0.25 },
  recovery_s: { kind: 'rate_limit', unit: 's', worse: 'up', absFloor: 1, relFloor: 0.5 },
  // Numeric facts: the clock drifting past the tolerance, a lifetime changed past rounding.
  clock_skew_s: { kind: 'fact', unit: 's', worse: 'both', absFloor: 2, relFloor: 0 },
  lifetime_s: { kind: 'fact', unit: 's', worse: 'both', absFloor: 5, relFloor: 0 },
  // Its measurement's bounds (cutover compares lifetimes outside them): they move with the run's skew.
  lifetime_min_s: { kind: 'fact', unit: 's', worse: 'both', absFloor: 5, relFloor: 0 },
  lifetime_max_s: { kind: 'fact', unit: 's', worse: 'both', absFloor: 5, relFloor: 0 },
};

/** A number the table does not know is a fact: any change beyond rounding is reported. */
export const ruleFor = (name: string): FigureRule =>
  FIGURE_RULES[name] ?? { kind: 'fact', unit: '', worse: 'both', absFloor: 0.5, relFloor: 0 };
