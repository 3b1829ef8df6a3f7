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
  /**
   * The figure depends on a condition of its run that the machine, not the service, sets: it is
   * judged only against stored runs whose condition (a figure of the same subject) was within
   * `within` times this run's, and said "not compared" when too few were.
   */
  condition?: {
    name: string;
    within: number;
    /** In a sentence about this run: "its burst was offered at 69/s". */
    what: string;
    /** Between two sides (cutover): "offered 196 vs 69 req/s". */
    short: string;
    /**
     * A figure both runs must have recorded to be alike at all: how the measurement was made, which a
     * harness upgrade changed (a run stored before it measured something else under the same name).
     */
    requires?: { name: string; missing: string };
    /**
     * The figure never rises as the condition rises, so a run under a higher condition bounds this
     * one's from below and one under a lower condition from above: when too few runs were alike,
     * those bound it on one side (comparable.ts), and only a change past that side is judged.
     */
    falls?: true;
  };
  /** A run's condition, not the service's figure: charted, never judged (why, in words). */
  context?: string;
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
  // One sample is at the mercy of a busy machine, so only a doubling (and 50 ms) counts: on CI's
  // loaded 2-core runner one unchanged answer took 31.9 ms against a median of 11.7 (land37).
  latency_ms: LATENCY(50, 1),
  // k6: thousands of samples per run, so the median is steady; a 5 s run's p99 rests on a few
  // dozen answers and moved 4 → 35 ms between two steady runs on loopback, hence its wide floor.
  p50_ms: LATENCY(10, 0.5),
  p95_ms: LATENCY(25, 0.5),
  p99_ms: LATENCY(50, 1),
  error_rate: { kind: 'latency', unit: '', worse: 'up', absFloor: 0.01, relFloor: 0 },
  rate_per_s: { kind: 'latency', unit: '/s', worse: 'down', absFloor: 1, relFloor: 0.2 },
  // ratelimit.limit-enforced, and the ratelimit command's estimate. A limit that refills admits
  // more before its first 429 the slower the burst comes: a token bucket of capacity B refilling
  // at r, offered R > r, first refuses after B·R/(R − r) requests (50/50 at 200/s: 67; at 69/s, as
  // a loaded 2-core machine once offered it: 183). Between two rates a factor k apart the count
  // moves by (1 − x)/(1 − k·x), x = r / the faster rate: for k = 1.2 at most ×1.25 (the relative
  // floor) while x ≤ 0.5, i.e. while the limit is at most half the rate offered (×1.07 for the
  // emulator's 50/s under a 200/s burst). Runs further apart are not compared.
  accepted_before_limit: {
    kind: 'rate_limit',
    unit: '',
    worse: 'both',
    absFloor: 5,
    relFloor: 0.25,
    condition: {
      name: 'offered_rps',
      within: 1.2,
      what: 'its burst was offered at',
      short: 'offered',
      // Since 2026-11-30 the burst starts after a second without requests (src/runner/limit-burst.ts):
      // before, the run's own earlier checks left a bucket part-drained on a quick machine (50 where a
      // full 50/50 bucket gives 66 at 200/s), so older counts are not like the new ones.
      requires: { name: 'quiet_before_s', missing: 'stored before the burst waited out a quiet second' },
      // A slower burst gets at least as many through: a bucket's B·R/(R − r) falls as R grows, a
      // window admits its limit or more to a burst that outlasts it, a sliding one lets older
      // requests age out meanwhile. So runs offered faster are a floor for this run's count (a
      // shrunk limit is still caught on a run the machine slowed: CI ci-38f offered 148/s against
      // stored runs at 47.6–200/s, none within ×1.2, and the halved limit went unjudged).
      falls: true,
    },
  },
  quiet_before_s: {
    kind: 'rate_limit',
    unit: 's',
    worse: 'both',
    absFloor: 0,
    relFloor: 0,
    context: 'the quiet the burst waited for before it started; it decides which stored counts are like this one',
  },
  offered_rps: {
    kind: 'rate_limit',
    unit: '/s',
    worse: 'both',
    absFloor: 0,
    relFloor: 0,
    context:
      'the rate the machine reached (or the service took the burst in at, when a queue built up), which a loaded machine holds down; it decides which runs the burst is compared with',
  },
  sustained_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
  sustained_held_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
  target_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
  target_held_rps: { kind: 'rate_limit', unit: '/s', worse: 'both', absFloor: 1, relFloor: 0.2 },
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

/** A figure with its unit, as the history's lines write it: `183`, `69.2/s`, `41 ms`. */
export const formatFigure = (n: number, unit: string): string =>
  `${Number(n.toPrecision(3))}${unit === '' ? '' : unit.startsWith('/') ? unit : ` ${unit}`}`;
