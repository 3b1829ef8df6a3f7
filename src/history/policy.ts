// What a change does to the run: `regressions:` in the config says warn (default) or fail per
// kind. An improvement is only said. The run's exit code follows the outcome (fail → 1).

import type { Change, RegressionPolicy, SinceLastRun } from '../report/sections/since/model.js';
import type { Finding } from './compare.js';

const ORDER = { fail: 0, warn: 1, info: 2 } as const;

export function applyPolicy(findings: readonly Finding[], policy: RegressionPolicy): Change[] {
  return findings
    .map(({ regression, ...f }): Change => ({ ...f, action: regression ? policy[f.kind] : 'info' }))
    .sort((a, b) => ORDER[a.action] - ORDER[b.action]);
}

export function outcomeOf(changes: readonly Change[]): SinceLastRun['outcome'] {
  if (changes.some((c) => c.action === 'fail')) return 'fail';
  return changes.some((c) => c.action === 'warn') ? 'warn' : 'none';
}
