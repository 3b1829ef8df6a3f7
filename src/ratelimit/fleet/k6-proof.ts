// The fleet run on the real limit: the k6 `fleet` bundle (scenarios/fleet.ts) with the same
// FleetRun the simulator takes, read back into the same figures (figures.ts), with the round trip
// k6 measured so the simulation of that run can be given it.

import { runK6Bundle } from '../../k6/scenarios.js';
import type { LoadScenarioResult } from '../../report/model.js';
import type { Credentials } from '../../spec/credentials.js';
import type { RateLimitEndpoint } from '../../spec/endpoints.js';
import type { FleetFigures } from './figures.js';
import type { FleetRun } from './run-setup.js';

export interface FleetK6Options {
  k6Path: string;
  bundleDir: string;
  workDir: string;
  target: { baseUrl: string; credentials: Credentials; caFile?: string };
  endpoint: RateLimitEndpoint;
  run: FleetRun;
  runId: string;
  tokenLifetimeS?: number;
  signal?: AbortSignal;
}

export interface FleetK6Result {
  /** Null when k6 did not produce figures (scenario.error says why). */
  figures: FleetFigures | null;
  /** k6's median request duration, ms. */
  latency_p50_ms: number | null;
  /**
   * The mean time an instance spent on one attempt, from sending to the answer in hand (k6's own
   * work included), ms: the round trip to simulate the same run with; null when k6 did not say.
   */
  attempt_ms: number | null;
  /** How late, on average, an instance woke from a sleep past the moment it meant to act, ms (0 when it never slept). */
  wake_late_ms: number;
  /** The wall-clock instant (epoch ms) of the run's time 0, the scenarios' start; null when k6 did not say. */
  origin_ms: number | null;
  /** When setup() fetched the token through the limiter, ms relative to origin_ms (negative); null when k6 did not say. */
  setup_at_ms: number | null;
  scenario: LoadScenarioResult;
}

const count = (r: LoadScenarioResult, metric: string): number => {
  const v = r.extra?.[metric];
  return typeof v === 'number' ? v : 0;
};

export async function runFleetK6(opts: FleetK6Options): Promise<FleetK6Result> {
  const { run } = opts;
  const scenario = await runK6Bundle('fleet', {
    k6Path: opts.k6Path,
    bundleDir: opts.bundleDir,
    workDir: opts.workDir,
    inputs: {
      baseUrl: opts.target.baseUrl,
      clientId: opts.target.credentials.clientId,
      clientSecret: opts.target.credentials.clientSecret,
      tokenLifetimeS: opts.tokenLifetimeS ?? 86_400,
      clockToleranceS: 2,
      rate: Math.max(0.1, run.offered_rps),
      durationS: Math.max(1, run.duration_s),
      vus: run.instances,
      runId: opts.runId,
      rateLimitEndpoint: opts.endpoint,
      fleet: run,
    },
    ...(opts.target.caFile ? { caFile: opts.target.caFile } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (scenario.error !== undefined)
    return {
      figures: null,
      latency_p50_ms: null,
      attempt_ms: null,
      wake_late_ms: 0,
      origin_ms: null,
      setup_at_ms: null,
      scenario,
    };
  const sent = count(scenario, 'fleet_sent');
  const refused = count(scenario, 'fleet_refused');
  const succeeded = count(scenario, 'fleet_succeeded');
  const p99 = scenario.extra?.['fleet_call_ms p99_ms'];
  const figures: FleetFigures = {
    goodput_rps: Math.round((succeeded / run.duration_s) * 100) / 100,
    rate_429: sent > 0 ? Math.round((refused / sent) * 1e4) / 1e4 : 0,
    p99_ms: typeof p99 === 'number' && succeeded > 0 ? p99 : null,
    sent,
    refused,
    succeeded,
    lost: count(scenario, 'fleet_lost'),
    throttled: count(scenario, 'fleet_throttled'),
  };
  const origin = count(scenario, 'fleet_origin_ms');
  const setupAt = count(scenario, 'fleet_setup_at_ms');
  const attempt = count(scenario, 'fleet_attempt_ms avg_ms');
  return {
    figures,
    latency_p50_ms: scenario.latency_ms.p50,
    attempt_ms: attempt > 0 ? Math.round(attempt * 1000) / 1000 : null,
    wake_late_ms: Math.round(count(scenario, 'fleet_wake_late_ms avg_ms') * 1000) / 1000,
    origin_ms: origin > 0 ? origin : null,
    setup_at_ms: origin > 0 && setupAt > 0 ? Math.round((setupAt - origin) * 10) / 10 : null,
    scenario,
  };
}
