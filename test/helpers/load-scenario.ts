// One k6 scenario's result as the report model holds it: a passing run, to be varied per test.

import type { LoadScenarioResult } from '../../src/report/model.js';

export const loadScenario = (over: Partial<LoadScenarioResult> = {}): LoadScenarioResult => ({
  scenario: 'throughput',
  requests: 100,
  rate_per_s: 20,
  latency_ms: { p50: 1, p95: 2, p99: 3, max: 4 },
  error_rate: 0,
  checks: { passed: 100, failed: 0 },
  thresholds: [{ metric: 'http_req_duration', expression: 'p(95)<500', ok: true }],
  dropped_iterations: 0,
  ...over,
});
