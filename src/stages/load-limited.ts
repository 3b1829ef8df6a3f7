// A load scenario that failed only because the service's rate limit let through less than the load
// offered. The spec sets no threshold for the limit (§8: it exists, its size is not shown), so a
// sandbox limited to 10 req/s is conformant, and a spike trickling back at 10/s, or a throughput
// run at 30/s, loses calls past their retries against it. That is this run's setting meeting a lower
// limit, not a failure of the service: the scenario is "not tested", with why and what to change.
// Anything else in the scenario (a 5xx, a token refused before its expiry, a 429 without its JSON
// body, a transport error, a threshold of another metric) keeps it a failure.

import type { LoadScenarioResult } from '../report/model.js';
import { K6_SCENARIOS, isK6ScenarioName } from '../k6/scenarios.js';

/** The thresholds a limit below the offered load breaks, and nothing else breaks. */
const LIMIT_BROKEN = new Set(['logical_calls_lost', 'checks']);

const count = (extra: LoadScenarioResult['extra'], key: string): number | undefined => {
  const v = extra?.[key];
  return typeof v === 'number' ? v : undefined;
};

/** The token figures a scenario keeps (refused, or changed, before expiry): at least one, each 0. */
function tokensSound(extra: LoadScenarioResult['extra']): boolean {
  const figures = ['token_refused_before_expiry', 'token_changed_before_expiry'].map((k) => count(extra, k));
  return figures.some((f) => f !== undefined) && figures.every((f) => f === undefined || f === 0);
}

/** Why `r` is not tested rather than failed (its calls were lost to the rate limit alone), or undefined. */
export function lostToTheLimit(r: LoadScenarioResult): string | undefined {
  const failed = r.thresholds.filter((t) => !t.ok);
  if (r.error !== undefined || failed.length === 0 || !failed.every((t) => LIMIT_BROKEN.has(t.metric)))
    return undefined;
  const lost = count(r.extra, 'logical_calls_lost') ?? 0;
  const refused = count(r.extra, 'rate_limited_responses') ?? 0;
  // Clean figures: a 5xx is a failed request (error_rate: only 2xx, 401 and 429 are expected) and,
  // where the scenario counts them, a server error; the token figure every scenario reports.
  const clean =
    (count(r.extra, 'server_errors') ?? 0) === 0 &&
    tokensSound(r.extra) &&
    r.error_rate === 0 &&
    r.checks.failed <= lost;
  if (!clean || lost === 0 || refused === 0) return undefined;
  const offered = typeof r.extra?.['notes'] === 'string' ? ` (${r.extra['notes']})` : '';
  const refusedAll = r.requests > 0 && refused >= r.requests;
  if (refusedAll) return `${r.scenario}: ${admittedNothing(r, offered)}`;
  return `${r.scenario}: the service's rate limit refused ${lost} of its calls past their retries (${refused} answers 429, no other error) at ${r.rate_per_s.toFixed(1)} requests/s${offered}: the load offered more than this service's limit lets through, a setting of this run, not a failure of the service; ${whatToLower(r.scenario)}`;
}

/**
 * Every request answered 429: the limit admitted nothing, at any rate. Lowering the load cannot
 * help against a limit of 0 or one already spent (a quota per hour or day), so none is advised.
 */
function admittedNothing(r: LoadScenarioResult, offered: string): string {
  return `the service's rate limit admitted nothing: all ${r.requests} of its requests were answered 429 at ${r.rate_per_s.toFixed(1)} requests/s${offered}, so lowering the rate does not help; no verdict on the service under load. Check the credentials' quota (a limit of 0, or one spent for its window) and run again once it admits requests`;
}

/**
 * The setting that paces the scenario: token-lifecycle's VUs call in a loop, so load.rate, which it
 * never reads, would leave it as limited as before (a sandbox limited to 20 per 10 s, 30 Nov).
 */
function whatToLower(scenario: string): string {
  const byArrivals = isK6ScenarioName(scenario) && 'requestsPerArrival' in K6_SCENARIOS[scenario];
  return byArrivals
    ? 'lower load.rate (--rate) or load.over_limit_rate below the rate `ces-harness ratelimit` measures'
    : 'lower load.vus (--vus): its virtual users call in a loop, load.rate does not pace it; against a limit below what one sends (a call, then 0.1–0.3 s asleep: up to about 5 requests/s) it stays not tested';
}
