// The k6 stage of the harness, for the CLI: find k6, run the bundled scenarios, read their
// summaries into the report model.

export { locateK6, checkK6, PROJECT_K6_DIR, type LocatedK6 } from './locate.js';
export { PINNED_K6_VERSION, REQUIRED_K6_MAJOR } from './version.js';
export { runScenario, K6_EXIT, type RunScenarioOptions, type RunScenarioResult } from './run.js';
export { toLoadScenarioResult, mergeLoadScenarioResults, scenarioOk, type K6Summary } from './summary.js';
export { scenarioEnv, SCENARIO_ENV, SCENARIO_DEFAULTS, type ScenarioInputs } from './contract.js';
export {
  K6_SCENARIOS,
  K6_SCENARIO_NAMES,
  isK6ScenarioName,
  runLoadScenario,
  defaultTimeoutMs,
  runProblem,
  type K6ScenarioName,
  type LoadRunOptions,
} from './scenarios.js';
