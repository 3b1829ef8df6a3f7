// `ces-harness load`: the k6 scenarios the flags select; the stage itself is src/stages/load.ts.

import { usageError } from '../../errors.js';
import { isK6ScenarioName, K6_SCENARIO_NAMES, type K6ScenarioName } from '../../k6/scenarios.js';
import type { Options } from '../flags.js';

export function selectedScenarios(options: Options): K6ScenarioName[] {
  const names = options.scenario ?? [];
  const unknown = names.filter((n) => !isK6ScenarioName(n));
  if (unknown.length)
    throw usageError(`unknown scenario ${unknown.join(', ')}; known: ${K6_SCENARIO_NAMES.join(', ')}`);
  return names.length ? (names as K6ScenarioName[]) : K6_SCENARIO_NAMES;
}
