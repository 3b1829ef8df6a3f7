// A conformant service limited below the load's rate (a 10 req/s sandbox against the default spike
// and throughput) loses calls past their retries: the scenario is not tested, never failed. The
// figures are those k6 reported against `serve --rate-limit 10 --burst 10` (30 Nov); anything else
// in the scenario keeps it a failure.

import { describe, expect, it } from 'vitest';
import type { LoadScenarioResult } from '../../src/report/model.js';
import { lostToTheLimit } from '../../src/stages/load-limited.js';

const limitedSpike: LoadScenarioResult = {
  scenario: 'rate-limit',
  requests: 1098,
  rate_per_s: 89.33,
  error_rate: 0,
  checks: { passed: 1290, failed: 65 },
  dropped_iterations: 0,
  latency_ms: { p50: 0.8, p95: 1.2, p99: 1.6, max: 4 },
  thresholds: [
    { metric: 'checks', expression: 'rate>0.99', ok: false },
    { metric: 'logical_calls_lost', expression: 'count==0', ok: false },
    { metric: 'server_errors', expression: 'count==0', ok: true },
  ],
  extra: {
    logical_calls_lost: 65,
    rate_limited_responses: 969,
    server_errors: 0,
    token_refused_before_expiry: 0,
    notes: 'endpoint tokens.validate, 100/s for 1.5s, then 10/s; backoff 100–5000 ms full jitter, ≤ 8 retries',
  },
} as LoadScenarioResult;

/** throughput's own figures in that run: no server_errors metric, its 5xx would be failed requests. */
const limitedThroughput = {
  ...limitedSpike,
  scenario: 'throughput',
  rate_per_s: 31,
  checks: { passed: 594, failed: 2 },
  thresholds: [{ metric: 'logical_calls_lost', expression: 'count==0', ok: false }],
  extra: { logical_calls_lost: 2, rate_limited_responses: 355, token_refused_before_expiry: 0 },
} as LoadScenarioResult;

describe('a load scenario lost to the rate limit alone', () => {
  it('token-lifecycle, which counts tokens changed (not refused) before expiry, the same; a changed token fails it', () => {
    // Flask-Limiter's 50 per hour spent: every POST /tokens answered 429 (30 Nov, `serve --limiter … fixed:limit=50,window=3600`).
    const lifecycle = {
      ...limitedSpike,
      scenario: 'token-lifecycle',
      rate_per_s: 18.5,
      checks: { passed: 111, failed: 77 },
      extra: { logical_calls_lost: 77, rate_limited_responses: 81, token_changed_before_expiry: 0 },
    } as LoadScenarioResult;
    expect(lostToTheLimit(lifecycle)).toMatch(/^token-lifecycle: the service's rate limit refused 77 of its calls/);
    expect(
      lostToTheLimit({ ...lifecycle, extra: { ...lifecycle.extra, token_changed_before_expiry: 1 } }),
    ).toBeUndefined();
  });

  it('token-lifecycle, paced by its VUs, names load.vus: load.rate, which it never reads, would not help', () => {
    // `serve --limiter sliding --rate-limit 2 --window 10` under `run` (30 Nov): 24 calls lost at 4.4/s.
    const lifecycle = {
      ...limitedSpike,
      scenario: 'token-lifecycle',
      rate_per_s: 4.4,
      checks: { passed: 40, failed: 24 },
      extra: { logical_calls_lost: 24, rate_limited_responses: 29, token_changed_before_expiry: 0 },
    } as LoadScenarioResult;
    const why = lostToTheLimit(lifecycle);
    expect(why).toMatch(/not a failure of the service; lower load\.vus \(--vus\)/);
    expect(why).not.toMatch(/load\.rate \(--rate\) or/);
    expect(lostToTheLimit(limitedSpike)).not.toMatch(/load\.vus/);
  });

  it('throughput, which counts no server errors of its own, the same', () => {
    expect(lostToTheLimit(limitedThroughput)).toMatch(/^throughput: the service's rate limit refused 2 of its calls/);
    expect(lostToTheLimit({ ...limitedThroughput, error_rate: 0.004 })).toBeUndefined();
  });

  it('is not tested, saying how many calls the limit took, at what rate, and what to change', () => {
    expect(lostToTheLimit(limitedSpike)).toMatch(
      /^rate-limit: the service's rate limit refused 65 of its calls past their retries \(969 answers 429, no other error\) at 89\.3 requests\/s \(endpoint tokens\.validate, 100\/s for 1\.5s, then 10\/s;.*\): .*not a failure of the service; lower load\.rate \(--rate\) or load\.over_limit_rate/,
    );
  });

  // A service that refuses everything (a limit of 0, a quota spent for the hour): a lower rate would
  // be refused the same, so the line says the limit admitted nothing and advises no lower rate.
  it('when every request was answered 429, says the limit admitted nothing and advises no lower rate', () => {
    const refusedAll = {
      ...limitedSpike,
      requests: 300,
      checks: { passed: 300, failed: 120 },
      extra: { ...limitedSpike.extra, logical_calls_lost: 120, rate_limited_responses: 300 },
    } as LoadScenarioResult;
    const why = lostToTheLimit(refusedAll);
    expect(why).toMatch(
      /^rate-limit: the service's rate limit admitted nothing: all 300 of its requests were answered 429 at 89\.3 requests\/s .*lowering the rate does not help/,
    );
    expect(why).not.toMatch(/lower load\.(rate|vus)/);
  });

  it.each([
    ['a 5xx', { extra: { ...limitedSpike.extra, server_errors: 2 } }],
    ['a token refused before its expiry', { extra: { ...limitedSpike.extra, token_refused_before_expiry: 1 } }],
    ['no token figure at all', { extra: { ...limitedSpike.extra, token_refused_before_expiry: undefined } }],
    ['failed checks beyond the lost calls (a 429 without its JSON body)', { checks: { passed: 1200, failed: 90 } }],
    ['transport errors', { error_rate: 0.01 }],
    [
      'another threshold',
      { thresholds: [...limitedSpike.thresholds, { metric: 'http_req_duration', expression: 'p(95)<500', ok: false }] },
    ],
    ['no 429 at all', { extra: { ...limitedSpike.extra, rate_limited_responses: 0 } }],
    ['k6 crashed', { error: 'k6 exited with 107' }],
  ])('stays failed with %s', (_, change) => {
    expect(lostToTheLimit({ ...limitedSpike, ...change } as LoadScenarioResult)).toBeUndefined();
  });
});
