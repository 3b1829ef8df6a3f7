// The recommendation, proven: the k6 `rate-limit` scenario, steady at the recommended rate, with the
// recommended backoff (CES_BACKOFF_*), against the same endpoint. A policy that is right loses no
// request and sees (almost) no 429; the figures go into the report as `proof`.

import { QUOTA_AFTER_S } from './proof-loop.js';
import type { ScenarioInputs } from '../k6/contract.js';
import { runLoadScenario } from '../k6/scenarios.js';
import { scenarioOk } from '../k6/summary.js';
import type { Credentials } from '../spec/credentials.js';
import type { LoadScenarioResult } from '../report/model.js';
import type { RateLimitEndpoint } from '../spec/endpoints.js';
import type { Proof, Recommendation } from './types.js';

export interface ProveOptions {
  k6Path: string;
  bundleDir: string;
  /** Where k6 writes its summary. */
  workDir: string;
  target: { baseUrl: string; credentials: Credentials; caFile?: string };
  endpoint: RateLimitEndpoint;
  business?: ScenarioInputs['business'];
  validateMethod?: string;
  recommendation: Recommendation;
  /** How long the steady load runs, seconds. */
  durationS?: number;
  tokenLifetimeS: number;
  clockToleranceS: number;
  runId: string;
  signal?: AbortSignal;
}

export interface ProofRun {
  /** Null when k6 could not produce figures (the scenario's `error` says why). */
  proof: Proof | null;
  scenario: LoadScenarioResult;
  notes: string[];
  /**
   * When k6's first paced arrival was sent, ms since the epoch (the origin of refusals_began_s);
   * absent when k6 did not say. Some tenths of a second after prove() spawned it, more on a loaded machine.
   */
  arrivalsBeganMs?: number;
}

export const DEFAULT_PROOF_S = 10;

const count = (r: LoadScenarioResult, metric: string): number => {
  const v = r.extra?.[metric];
  return typeof v === 'number' ? v : 0;
};

export function proofInputs(opts: ProveOptions): ScenarioInputs {
  const rec = opts.recommendation;
  return {
    baseUrl: opts.target.baseUrl,
    clientId: opts.target.credentials.clientId,
    clientSecret: opts.target.credentials.clientSecret,
    tokenLifetimeS: opts.tokenLifetimeS,
    clockToleranceS: opts.clockToleranceS,
    rate: rec.target_rps,
    durationS: opts.durationS ?? DEFAULT_PROOF_S,
    // k6 holds a VU per call in flight, waits included; the scenario allocates more as needed.
    vus: Math.max(1, rec.max_concurrency),
    runId: opts.runId,
    retryBudgetS: rec.retry_budget_s,
    rateLimitEndpoint: opts.endpoint,
    backoff: { baseMs: rec.backoff.base_ms, capMs: rec.backoff.cap_ms, maxRetries: rec.backoff.max_retries },
    rateProfile: 'steady',
    ...(opts.business ? { business: opts.business } : {}),
    ...(opts.validateMethod ? { validateMethod: opts.validateMethod } : {}),
  };
}

export async function prove(opts: ProveOptions): Promise<ProofRun> {
  const inputs = proofInputs(opts);
  const scenario = await runLoadScenario('rate-limit', {
    k6Path: opts.k6Path,
    bundleDir: opts.bundleDir,
    workDir: opts.workDir,
    inputs,
    ...(opts.target.caFile ? { caFile: opts.target.caFile } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (scenario.error) return { proof: null, scenario, notes: [`proof run did not complete: ${scenario.error}`] };

  const requests = scenario.requests;
  const ok = count(scenario, 'logical_calls_ok');
  const lost = count(scenario, 'logical_calls_lost');
  const began =
    typeof scenario.extra?.['refusals_began_s'] === 'number' ? scenario.extra['refusals_began_s'] : undefined;
  const proof: Proof = {
    rate_429: requests > 0 ? Math.round((count(scenario, 'rate_limited_responses') / requests) * 1e4) / 1e4 : 0,
    // Successful calls per second of offered load (the arrivals run for durationS; the graceful
    // tail only lets waiting calls finish).
    goodput_rps: Math.round((ok / inputs.durationS) * 100) / 100,
    lost_requests: lost,
    // When refusals began: at once, the rate is above a limit; after a while, a quota ran out.
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, inputs.rate, inputs.durationS),
  };
  const notes: string[] = [];
  if (scenario.dropped_iterations > 0)
    notes.push(
      `proof run: k6 dropped ${scenario.dropped_iterations} arrivals it had no VU for (the load generator, not the service)`,
    );
  if (!scenarioOk(scenario)) {
    const failed = scenario.thresholds.filter((t) => !t.ok).map((t) => `${t.metric} ${t.expression}`);
    notes.push(`proof run: thresholds not met (${failed.join('; ')})`);
  }
  const beganMs = scenario.extra?.['arrivals_began_ms'];
  return { proof, scenario, notes, ...(typeof beganMs === 'number' ? { arrivalsBeganMs: beganMs } : {}) };
}
/** The stretch after the first refusal must be this long for its rate to mean anything. */
const AFTER_QUOTA_MIN_S = 5;

/**
 * What the limit let through per second once refusals began: the calls that succeeded, less those
 * the paced client had sent before (at most rate × t, so the figure errs low when k6 fell behind),
 * over the rest of the run. A bucket admits its rate then, a window its limit per window (less when
 * the stretch ends inside a window): never more than a client running for hours gets.
 */
export function afterQuota(
  ok: number,
  began: number | undefined,
  rate: number,
  durationS: number,
): { after_quota_rps?: number } {
  if (began === undefined || began < QUOTA_AFTER_S || durationS - began < AFTER_QUOTA_MIN_S) return {};
  const before = Math.min(ok, rate * began);
  return { after_quota_rps: Math.round(((ok - before) / (durationS - began)) * 100) / 100 };
}
