// What a run's report says about the runs before it (src/history/ produces it, the renderers show
// it): the changes since the last run, judged against the stored history, and the trends behind
// them. Plain data, like the rest of the result model.

/** The four kinds of regression the `regressions:` policy decides on. */
export const REGRESSION_KINDS = ['check', 'fact', 'latency', 'rate_limit'] as const;
export type RegressionKind = (typeof REGRESSION_KINDS)[number];

/** What the policy made of a change: nothing (an improvement), a warning, or a failed run. */
export type ChangeAction = 'info' | 'warn' | 'fail';

export interface NoiseBand {
  /** Median of the stored runs' values. */
  median: number;
  low: number;
  high: number;
  /** How many stored runs the band rests on. */
  runs: number;
}

export interface Change {
  kind: RegressionKind;
  /** What the change belongs to: a check id, `k6 <scenario>`, `rate limit`. */
  subject: string;
  /** `status`, a fact's name, a figure's name. */
  name: string;
  before: string | number | null;
  after: string | number | null;
  /** Figures only: the band of the stored runs the value fell outside. */
  band?: NoiseBand;
  action: ChangeAction;
  /** One line: what changed, from what to what. */
  text: string;
}

/** A figure of this run that was not judged: too few stored runs measured it under a comparable condition. */
export interface NotCompared {
  subject: string;
  name: string;
  /** One line: the figure, this run's condition, the stored runs' (history/comparable.ts). */
  text: string;
}

export interface SinceLastRun {
  /** `none`: no earlier run of this target is stored; the first run says so and compares nothing. */
  history: 'none' | 'compared';
  /** Stored runs of this target the figures were judged against (at most the configured window). */
  runs_compared: number;
  last_run?: { started_at: string; verdict: string; tool_version: string };
  /** Regressions first (fail, then warn), then changes for the better. */
  changes: Change[];
  /** Figures not judged at all: no change is claimed for them either way. */
  not_compared?: NotCompared[];
  /** `fail` when a change the policy fails on happened: the run's exit code is then 1. */
  outcome: 'none' | 'warn' | 'fail';
  /** How figures were judged, in one sentence (shown under the section). */
  method: string;
  /** Trouble with the history file that changed no verdict (a corrupt line skipped, say). */
  warnings?: string[];
}

/** One figure over the stored runs and this one, oldest first, for a trend chart. */
export interface TrendSeries {
  kind: RegressionKind;
  subject: string;
  name: string;
  unit: string;
  /** Oldest first; the last value is this run's. Null where a run did not measure it. */
  values: Array<number | null>;
  band?: NoiseBand;
  /**
   * Set when the band's runs bound this run's figure on one side only (they measured it under
   * another condition, history/comparable.ts): 'down', a fall past its low edge is judged; 'up', a
   * rise past its high edge. Only that edge means anything, and only it is drawn.
   */
  side?: 'up' | 'down';
}

export interface Trends {
  /** The stored runs' verdicts and this run's, oldest first. */
  verdicts: Array<{ started_at: string; verdict: string }>;
  series: TrendSeries[];
}

/** What each kind of regression does to the run (`regressions:` in the config), and the window. */
export type RegressionPolicy = Record<RegressionKind, 'warn' | 'fail'> & {
  /** How many stored runs the noise of a figure is judged from. */
  runs: number;
};

export const DEFAULT_REGRESSION_POLICY: RegressionPolicy = {
  check: 'warn',
  fact: 'warn',
  latency: 'warn',
  rate_limit: 'warn',
  runs: 10,
};
