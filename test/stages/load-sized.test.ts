// `run` against a conformant service limited below its default load: which scenarios run again once
// the limit is sized, and at what rate. Only those the limit alone kept from a verdict, only rates the
// user did not set, only from a policy the sizing gave (proven or not, and said which), and never
// faster than that policy (or max_rps).

import { describe, expect, it } from 'vitest';
import type { LoadSettings } from '../../src/config/resolve.js';
import type { LoadResult, LoadScenarioResult, RateLimitResult } from '../../src/report/model.js';
import { SIZED_SPIKE, scenariosToSize } from '../../src/stages/load-sized.js';

const scenario = (name: string, notTested: boolean): LoadScenarioResult =>
  ({
    scenario: name,
    requests: 100,
    rate_per_s: 20,
    error_rate: 0,
    checks: { passed: 98, failed: 2 },
    dropped_iterations: 0,
    latency_ms: { p50: 1, p95: 1, p99: 1, max: 1 },
    thresholds: [{ metric: 'logical_calls_lost', expression: 'count==0', ok: !notTested }],
    ...(notTested ? { not_tested: `${name}: the service's rate limit refused 2 of its calls` } : {}),
  }) as LoadScenarioResult;

const load = (...scenarios: LoadScenarioResult[]): LoadResult => ({
  k6_version: 'v',
  run_id: 'r',
  scenarios,
  ok: true,
});

/** The sizing's result against `serve --rate-limit 10 --burst 10` (30 Nov): 7.9 req/s proven. */
const proven = {
  sustained_rps: 9.95,
  proof_verdict: 'proven',
  recommendation: {
    target_rps: 7.9,
    max_concurrency: 1,
    backoff: { base_ms: 200, cap_ms: 1100, jitter: 'full', max_retries: 6 },
  },
} as RateLimitResult;

const settings: LoadSettings = {
  rate: 20,
  overLimitRate: 100,
  durationS: undefined,
  vus: 5,
  thresholds: undefined,
  outputs: [],
  segments: 1,
  given: { rate: false, overLimitRate: false },
};

const bothLimited = load(
  scenario('token-lifecycle', false),
  scenario('rate-limit', true),
  scenario('throughput', true),
);

describe('the load scenarios run again at rates sized from the limit', () => {
  it('the spike over the proven rate, throughput so that its four requests an arrival stay within it', () => {
    const sized = scenariosToSize(bothLimited, proven, settings, 200);
    expect(sized).toEqual([
      { scenario: 'rate-limit', sized: { default_rps: 100, rps: 23.7, policy_rps: 7.9, policy_proven: true } },
      // 7.9 / 4 = 1.975, rounded down: a token and a call for each of the two business endpoints.
      { scenario: 'throughput', sized: { default_rps: 20, rps: 1.9, policy_rps: 7.9, policy_proven: true } },
    ]);
    expect(sized[0]!.sized.rps).toBeCloseTo(SIZED_SPIKE * 7.9, 5);
  });

  it('never faster than rate_limit.max_rps', () => {
    expect(scenariosToSize(bothLimited, proven, settings, 12).map((s) => s.sized.rps)).toEqual([12, 1.9]);
  });

  it('a rate the user set is theirs: that scenario stays not tested', () => {
    const rateGiven = { ...settings, given: { rate: true, overLimitRate: false } };
    expect(scenariosToSize(bothLimited, proven, rateGiven, 200).map((s) => s.scenario)).toEqual(['rate-limit']);
    const spikeGiven = { ...settings, given: { rate: false, overLimitRate: true } };
    expect(scenariosToSize(bothLimited, proven, spikeGiven, 200).map((s) => s.scenario)).toEqual(['throughput']);
  });

  it('an unproven policy sizes them too, marked unproven: the second run is its own verdict', () => {
    // run's 30 s probe cut short on a queueing limiter (nginx without nodelay): 7.9 req/s, no proof ran.
    for (const verdict of ['not proven within horizon', 'not run'] as const)
      expect(
        scenariosToSize(bothLimited, { ...proven, proof_verdict: verdict }, settings, 200).map((s) => s.sized),
      ).toEqual([
        { default_rps: 100, rps: 23.7, policy_rps: 7.9, policy_proven: false },
        { default_rps: 20, rps: 1.9, policy_rps: 7.9, policy_proven: false },
      ]);
  });

  it('nothing without a policy: none given, or refuted by its proof', () => {
    const refuted = { ...proven, proof_verdict: 'not proven', recommendation: null } as RateLimitResult;
    expect(scenariosToSize(bothLimited, refuted, settings, 200)).toEqual([]);
    expect(scenariosToSize(bothLimited, { ...proven, recommendation: null }, settings, 200)).toEqual([]);
    expect(scenariosToSize(bothLimited, null, settings, 200)).toEqual([]);
  });

  it('only the scenarios the limit alone kept from a verdict, and only those driven by an arrival rate', () => {
    expect(scenariosToSize(load(scenario('throughput', false)), proven, settings, 200)).toEqual([]);
    // token-lifecycle and tls run on their VUs: there is no rate to size.
    expect(
      scenariosToSize(load(scenario('token-lifecycle', true), scenario('tls', true)), proven, settings, 200),
    ).toEqual([]);
    const crashed = { ...scenario('throughput', true), error: 'k6 exited 107' };
    expect(scenariosToSize(load(crashed), proven, settings, 200)).toEqual([]);
  });
});
