// The fixtures are real: what scenarios/lib/summary.ts wrote from handleSummary when k6 v2.2.0 ran
// dist/scenarios/throughput.js (conformant emulator) and token-lifecycle.js (emulator with the
// token-rotates fault), 2 s each, CES_RUN_ID=fixture-run.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LoadScenarioResult } from '../../src/report/model.js';
import { mergeLoadScenarioResults, scenarioOk, toLoadScenarioResult } from '../../src/k6/summary.js';
import { loadScenario } from '../helpers/load-scenario.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));

describe('toLoadScenarioResult', () => {
  it('maps a passing run: requests, rate, latency in ms, errors, checks, thresholds', () => {
    const r = toLoadScenarioResult('throughput', fixture('throughput.summary.json'));
    expect(r).toMatchObject({
      scenario: 'throughput',
      requests: 67,
      rate_per_s: 32.59,
      latency_ms: { p50: 1.38, p95: 9.16, p99: 16.607, max: 18.856, avg: 2.574 },
      error_rate: 0,
      checks: { passed: 88, failed: 0 },
      dropped_iterations: 0,
    });
    expect(r.error).toBeUndefined();
    expect(r.thresholds).toEqual([
      { metric: 'checks', expression: 'rate>0.99', ok: true },
      { metric: 'http_req_duration', expression: 'p(95)<1000', ok: true },
      { metric: 'http_req_duration{mode:cached}', expression: 'p(95)<1000', ok: true },
      { metric: 'http_req_duration{mode:token_per_call}', expression: 'p(95)<1000', ok: true },
      { metric: 'http_req_failed', expression: 'rate<0.01', ok: true },
      { metric: 'logical_calls_lost', expression: 'count==0', ok: true },
    ]);
    expect(scenarioOk(r)).toBe(true);
  });

  it("puts the scenario's own metrics and figures in extra", () => {
    const { extra } = toLoadScenarioResult('throughput', fixture('throughput.summary.json'));
    expect(extra).toMatchObject({
      logical_calls_lost: 0,
      token_fetches: expect.any(Number),
      'logical_call_duration_cached p95_ms': expect.any(Number),
      'logical_call_duration_token_per_call p50_ms': expect.any(Number),
      'http_req_duration{mode:cached} p95_ms': expect.any(Number),
      token_per_call_cost_p50_ms: 0.31,
    });
    // k6's own metrics are in the fixed fields, not repeated.
    expect(
      Object.keys(extra ?? {}).some(
        (k) => k.startsWith('http_reqs') || k.startsWith('vus') || k.includes('expected_response'),
      ),
    ).toBe(false);
  });

  it('maps a failing run: the crossed thresholds are ok=false and the notes are kept', () => {
    const r = toLoadScenarioResult('token-lifecycle', fixture('token-lifecycle-rotates.summary.json'));
    expect(r.checks).toEqual({ passed: 21, failed: 17 });
    expect(r.thresholds.filter((t) => !t.ok)).toEqual([
      { metric: 'checks', expression: 'rate>0.99', ok: false },
      { metric: 'token_changed_before_expiry', expression: 'count==0', ok: false },
    ]);
    expect(r.extra?.token_changed_before_expiry).toBeGreaterThan(0);
    expect(r.extra?.notes).toMatch(/expiry not exercised/);
    expect(scenarioOk(r)).toBe(false);
  });

  it('reports a missing or foreign summary as an error, not as a pass', () => {
    for (const bad of [undefined, null, {}, { metrics: { x: 1 } }, 'text']) {
      const r = toLoadScenarioResult('tls', bad);
      expect(r.error).toMatch(/no summary/);
      expect(scenarioOk(r)).toBe(false);
    }
  });
});

describe('mergeLoadScenarioResults', () => {
  const part = (scenario: string, over: Partial<LoadScenarioResult>): LoadScenarioResult =>
    loadScenario({
      scenario,
      requests: 10,
      rate_per_s: 5,
      checks: { passed: 10, failed: 0 },
      thresholds: [{ metric: 'checks', expression: 'rate==1', ok: true }],
      ...over,
    });

  it('adds counts, keeps the first part latency and prefixes the later parts', () => {
    const merged = mergeLoadScenarioResults('tls', [
      part('tls', { requests: 30, error_rate: 0.1, extra: { tls_version_1_3: 1 } }),
      part('tls12-refused', {
        requests: 3,
        error_rate: 0,
        latency_ms: { p50: 0, p95: 0, p99: 0, max: 0 },
        checks: { passed: 3, failed: 3 },
        thresholds: [{ metric: 'tls12_connection_accepted', expression: 'rate==0', ok: false }],
        extra: { tls12_connection_accepted: 1 },
      }),
    ]);
    expect(merged).toMatchObject({
      scenario: 'tls',
      requests: 33,
      // One run after the other: 30 requests in 6 s, then 3 in 0.6 s, is 33 in 6.6 s.
      rate_per_s: 5,
      latency_ms: { p50: 1, p95: 2, p99: 3, max: 4 },
      error_rate: 0.090909,
      checks: { passed: 13, failed: 3 },
      extra: { tls_version_1_3: 1, 'tls12-refused: tls12_connection_accepted': 1 },
    });
    expect(merged.thresholds).toEqual([
      { metric: 'checks', expression: 'rate==1', ok: true },
      { metric: 'tls12-refused: tls12_connection_accepted', expression: 'rate==0', ok: false },
    ]);
    expect(scenarioOk(merged)).toBe(false);
  });

  it('carries any part error', () => {
    const merged = mergeLoadScenarioResults('tls', [
      part('tls', {}),
      part('tls12-refused', { error: 'k6 exited with 107' }),
    ]);
    expect(merged.error).toBe('k6 exited with 107');
  });
});
