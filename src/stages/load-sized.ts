// `run` against a conformant service whose rate limit is below the default load: a sandbox limited
// to 10 req/s refuses the throughput run's 20/s and the rate-limit spike's trickle, and the run said
// "not tested (load)" every day, exit 1, for a setting the user never chose. `run` measures the limit
// after the load, so the scenarios only the limit kept from a verdict (load-limited.ts) run again,
// once, at rates sized from the policy it recommends: a verdict at a rate the service lets through,
// which the report states beside the default that met the limit. The verdict is the second run's
// own, so an unproven policy (a probe cut short by run's budget, a proof that could not outlast the
// burst) may size it too: a rate still too high leaves the scenario not tested again, never passed. A rate the user set is theirs:
// never sized again (the scenario stays not tested, with what to lower). Pure: what to run, at what rate.

import { K6_SCENARIOS, loadWaves, isK6ScenarioName, type K6ScenarioName } from '../k6/scenarios.js';
import type { LoadSettings } from '../config/resolve.js';
import type { LoadResult, RateLimitResult, SizedLoad } from '../report/model.js';

/**
 * A scenario at load.rate sends at most the policy's rate: its arrival rate is that rate over the
 * requests one arrival sends (throughput's token-per-call half: a token fetch and a call for each
 * business endpoint), shared among the scenarios that run at once. Those driven by their VUs
 * (token-lifecycle, tls) have no rate to size and stay not tested.
 */

/**
 * The rate-limit scenario's spike, as a multiple of the policy's rate: over the limit for its short
 * spike (so 429s are met and waited out), and its trickle after (a tenth of the spike, 0.3 of the
 * policy's rate) leaves most of the limit free to drain the refused calls within one retry budget.
 */
export const SIZED_SPIKE = 3;

/** The rate-limit scenario runs at load.over_limit_rate; every other at load.rate. */
const OVER_LIMIT_SCENARIO: K6ScenarioName = 'rate-limit';

export interface SizedScenario {
  scenario: K6ScenarioName;
  sized: SizedLoad;
}

/** Rates are given to k6 to a tenth of a request per second, rounded down: never above the share. */
const tenthDown = (rps: number): number => Math.floor(rps * 10) / 10;

/**
 * The scenarios to run again and their rates: those the limit alone left not tested, at rates the
 * user did not set, when the sizing gave a policy (a refuted one is none); empty otherwise. Never above `maxRps`
 * (rate_limit.max_rps: nothing this run sends goes faster).
 */
export function scenariosToSize(
  load: LoadResult | null,
  limit: RateLimitResult | null,
  settings: LoadSettings,
  maxRps: number,
): SizedScenario[] {
  const policy = limit?.recommendation?.target_rps;
  if (load === null || limit === null || policy === undefined || !(policy > 0)) return [];
  const proven = limit.proof_verdict === 'proven';
  const given = (name: K6ScenarioName) =>
    name === OVER_LIMIT_SCENARIO ? settings.given.overLimitRate : settings.given.rate;
  const perArrival = (name: K6ScenarioName): number | undefined =>
    (K6_SCENARIOS[name] as { requestsPerArrival?: number }).requestsPerArrival;
  const limited = load.scenarios
    .filter((sc) => sc.not_tested !== undefined && sc.error === undefined)
    .map((sc) => sc.scenario)
    .filter(isK6ScenarioName)
    .filter((name) => !given(name) && perArrival(name) !== undefined);
  return loadWaves(limited).flatMap((wave) =>
    wave.flatMap((scenario): SizedScenario[] => {
      const over = scenario === OVER_LIMIT_SCENARIO;
      const within = policy / (perArrival(scenario) ?? 1) / wave.length;
      const rps = tenthDown(Math.min(maxRps, over ? SIZED_SPIKE * policy : within));
      if (!(rps > 0)) return [];
      const defaultRps = over ? settings.overLimitRate : settings.rate;
      return [{ scenario, sized: { default_rps: defaultRps, rps, policy_rps: policy, policy_proven: proven } }];
    }),
  );
}
