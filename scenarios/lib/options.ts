// The options every scenario shares: trend statistics the report needs, the run_id tag, and
// thresholds (defaults merged with CES_THRESHOLDS_JSON). Thresholds decide pass or fail: k6 exits
// 99 when one is crossed, which the harness turns into exit 1.

import type { Options, Scenario, Threshold } from 'k6/options';
import type { ScenarioConfig } from './config';
import { isKnownMetric } from './metrics';

/** src/k6/summary.ts reads exactly these statistics from the summary (p50 is k6's `med`). */
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];

export type Thresholds = Record<string, Threshold[]>;

/**
 * The default latency bound: p95 under the run's request timeout, past which a request has failed
 * anyway. The spec sets no latency: business work may take seconds (the slow-business profile), and
 * issuing a token may too (slow-token-issue: a secret checked with a slow key-derivation function,
 * a serverless sandbox); a fixed p95 under 1 s failed `load` against the latter. A latency objective
 * of your own goes in load.thresholds; the run history warns when latency grows.
 */
export const withinRequestTimeout = (cfg: Pick<ScenarioConfig, 'requestTimeoutS'>): string =>
  `p(95)<${Math.round(cfg.requestTimeoutS * 1000)}`;

/** Overrides that name a metric this scenario does not define; reported in the summary text. */
export const ignoredOverrides: string[] = [];

/**
 * Defaults, then the user's overrides: an override replaces the defaults of that metric (so a
 * looser p95 is possible), and overrides for metrics this scenario lacks are skipped, because the
 * same JSON goes to every scenario of a run.
 */
export function mergeThresholds(defaults: Thresholds, cfg: ScenarioConfig): Thresholds {
  const merged: Thresholds = { ...defaults };
  for (const [metric, list] of Object.entries(cfg.thresholdOverrides)) {
    if (isKnownMetric(metric)) merged[metric] = list;
    else ignoredOverrides.push(metric);
  }
  return merged;
}

export function scenarioOptions(
  cfg: ScenarioConfig,
  scenarios: Record<string, Scenario>,
  defaults: Thresholds,
  extra: Options = {},
): Options {
  return {
    scenarios,
    thresholds: mergeThresholds(defaults, cfg),
    summaryTrendStats: SUMMARY_TREND_STATS,
    // Every sample carries the run id, so metrics sent to an output (-o …) join the report.
    tags: cfg.runId === undefined ? {} : { run_id: cfg.runId },
    // A user agent the service's logs can attribute; no version of anything secret.
    userAgent: 'ces-harness (k6)',
    // The scenarios never follow redirects: a token endpoint that redirects is a finding, not a hop.
    maxRedirects: 0,
    // setup() fetches one token; a slow service must still get a chance.
    setupTimeout: '30s',
    ...extra,
  };
}

/** k6 durations as strings ("2.5s"), from seconds. */
export const secs = (s: number): string => `${Math.max(0, Math.round(s * 1000)) / 1000}s`;
