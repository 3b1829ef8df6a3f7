// Which checks each renderer singles out. One definition, so the Markdown "Failures" list, the
// JUnit failure count and the HTML badges cannot disagree about what broke the run.

import type { CheckResult, LoadResult, LoadScenarioResult, ThresholdResult } from '../model.js';

/** A must check that failed or errored: exactly what turns the verdict to fail. */
export const isBrokenMust = (c: CheckResult): boolean =>
  c.level === 'must' && (c.status === 'fail' || c.status === 'error');

export const brokenMusts = (checks: readonly CheckResult[]): CheckResult[] => checks.filter(isBrokenMust);

/** Should checks that did not hold. An errored should check cannot fail the run either, so it is a warning too. */
export const warnings = (checks: readonly CheckResult[]): CheckResult[] =>
  checks.filter((c) => c.status === 'warn' || (c.level === 'should' && c.status === 'error'));

export const skips = (checks: readonly CheckResult[]): CheckResult[] => checks.filter((c) => c.status === 'skip');

export interface ThresholdCount {
  met: number;
  total: number;
}

export function thresholdCount(load: LoadResult): ThresholdCount {
  const all: ThresholdResult[] = load.scenarios.flatMap((s) => s.thresholds);
  return { met: all.filter((t) => t.ok).length, total: all.length };
}

/**
 * The load section's headline without the icon. A crashed k6 run is not a crossed threshold: it
 * says the scenario did not complete, so nobody reads k6 failing as the service being slow.
 */
export function loadHeadline(load: LoadResult): string {
  if (load.ok) return 'thresholds met';
  const incomplete = load.scenarios.filter((s) => s.error !== undefined).length;
  const crossed = load.scenarios.some((s) => s.thresholds.some((t) => !t.ok));
  const parts = [
    ...(incomplete ? [`${incomplete} of ${load.scenarios.length} scenario(s) did not complete`] : []),
    ...(crossed ? ['thresholds not met'] : []),
  ];
  return parts.length ? parts.join('; ') : 'the load run did not finish';
}

export type TimedScenario = LoadScenarioResult & { timeline: NonNullable<LoadScenarioResult['timeline']> };

/** Scenarios that can be drawn over time: a scenario without samples would be an empty line. */
export const scenariosWithTimeline = (load: LoadResult): TimedScenario[] =>
  load.scenarios.filter((s): s is TimedScenario => (s.timeline?.length ?? 0) > 0);
