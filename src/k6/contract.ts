// The contract between the Node side and the k6 scenarios, written once: which CES_* variables
// carry a run's inputs (k6 reads them from __ENV, never from flags: k6 prints its command line in
// some error paths, and secrets must not be on it), what a scenario assumes when one is absent, and
// which metrics k6 itself defines. Plain data and functions only, no Node or k6 imports: Node
// imports this module, and esbuild bundles the same module into every scenario (scenarios/lib/).

import type { BusinessCalls, RateLimitEndpoint } from '../spec/endpoints.js';

/** Input → the environment variable that carries it. */
export const SCENARIO_ENV = {
  baseUrl: 'CES_BASE_URL',
  clientId: 'CES_CLIENT_ID',
  clientSecret: 'CES_CLIENT_SECRET',
  tokenLifetimeS: 'CES_TOKEN_LIFETIME_S',
  clockToleranceS: 'CES_CLOCK_TOLERANCE_S',
  rate: 'CES_RATE',
  durationS: 'CES_DURATION_S',
  vus: 'CES_VUS',
  runId: 'CES_RUN_ID',
  business: 'CES_BUSINESS_JSON',
  thresholds: 'CES_THRESHOLDS_JSON',
  validateMethod: 'CES_VALIDATE_METHOD',
  retryBudgetS: 'CES_RETRY_BUDGET_S',
  rateLimitEndpoint: 'CES_RATE_LIMIT_ENDPOINT',
  backoffBaseMs: 'CES_BACKOFF_BASE_MS',
  backoffCapMs: 'CES_BACKOFF_CAP_MS',
  maxRetries: 'CES_MAX_RETRIES',
  rateProfile: 'CES_RATE_PROFILE',
  requestTimeoutS: 'CES_REQUEST_TIMEOUT_S',
  /** rate-limit only: the most calls at once, their waits for a 429 included (ScenarioInputs.maxCalls). */
  maxCalls: 'CES_MAX_CALLS',
  /** rate-limit's proof round: when a round that has certainly failed ends (ScenarioInputs.cut), as JSON. */
  cut: 'CES_CUT_JSON',
  /** The fleet scenario's run (instances, policy, offered load, seed), as JSON (src/ratelimit/fleet/run-setup.ts). */
  fleet: 'CES_FLEET_JSON',
  /** Set by the runner (src/k6/run.ts), not by scenarioEnv: where handleSummary writes. */
  summaryFile: 'CES_SUMMARY_FILE',
} as const;

export interface Backoff {
  baseMs: number;
  capMs: number;
  maxRetries: number;
}

/** rate-limit's load shape: a spike above the limit, or a steady rate (a policy's proof). */
export const RATE_PROFILES = ['spike', 'steady'] as const;
export type RateProfile = (typeof RATE_PROFILES)[number];

/** What a scenario assumes for an input that was not given. */
export const SCENARIO_DEFAULTS = {
  /** §5.4: tokens live 24 h. */
  tokenLifetimeS: 86_400,
  clockToleranceS: 2,
  rate: 10,
  durationS: 10,
  vus: 5,
  /** §4.3 leaves validate's method open; GET unless the target wants another. */
  validateMethod: 'GET',
  retryBudgetS: 10,
  rateLimitEndpoint: 'business.evaluation',
  /** What a client does without advice: start at 100 ms, cap at 5 s, give up after 8 retries. */
  backoff: { baseMs: 100, capMs: 5_000, maxRetries: 8 },
  rateProfile: 'spike',
  /** One request, connect to last byte (request_timeout_s): a silent service shows up as failed requests. */
  requestTimeoutS: 10,
} as const satisfies {
  validateMethod: 'GET' | 'POST';
  rateLimitEndpoint: RateLimitEndpoint;
  backoff: Backoff;
  rateProfile: RateProfile;
  [input: string]: unknown;
};

/** What every scenario run is given, and reads back as it was given. */
export interface ScenarioBasics {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The token lifetime the service promises (§5.4), seconds. */
  tokenLifetimeS: number;
  /** Allowed clock skew between k6 and the service, seconds. */
  clockToleranceS: number;
  /** Arrival rate (iterations/s) for rate-limit and throughput. */
  rate: number;
  durationS: number;
  vus: number;
}

/** The inputs of a scenario run, typed; scenarioEnv turns them into the variables k6 reads. */
export interface ScenarioInputs extends ScenarioBasics {
  business?: BusinessCalls;
  /** metric → expressions, replacing that metric's defaults in every scenario that has the metric. */
  thresholds?: Record<string, string[]>;
  runId: string;
  validateMethod?: string;
  retryBudgetS?: number;
  rateLimitEndpoint?: RateLimitEndpoint;
  /** How the scenarios back off from a 429 without Retry-After (default SCENARIO_DEFAULTS.backoff). */
  backoff?: Backoff;
  rateProfile?: RateProfile;
  /** How long one request may take (default SCENARIO_DEFAULTS.requestTimeoutS). */
  requestTimeoutS?: number;
  /** fleet only: the run, passed through as JSON and checked by the scenario. */
  fleet?: object;
  /** rate-limit only: end the run once it has certainly failed (RoundCut); absent: it lasts its duration. */
  cut?: RoundCut;
  /**
   * rate-limit only: at most this many calls at once, a call waiting out a 429 keeping its VU (a
   * policy whose concurrency holds its waits, src/ratelimit/recommend.ts waitsHoldConcurrency); an
   * arrival with none free is dropped. Absent: as many as about 3 s of arrivals.
   */
  maxCalls?: number;
}

/**
 * When a proof round that has certainly failed ends (scenarios/rate-limit.ts): once the 429s its
 * clients met `afterRefusalsS` or more after their own first refused call number `minRefusals`
 * (enough to break the proof's promise whatever the rest answers); from `atOnceAfterS` instead for
 * a client whose first refused call started within `atOnceWithinS` of the run's start (refused from
 * the start: no quota ran out, so there is no after-rate to wait for). Or, from the same moment,
 * once the arrivals k6 dropped for want of a free VU (each held by a call waiting out refusals)
 * are more than `maxDropped` by a VU's reckoning: the round has then sent too little of its rate to
 * hold, whatever follows.
 */
export interface RoundCut {
  afterRefusalsS: number;
  minRefusals: number;
  atOnceWithinS: number;
  atOnceAfterS: number;
  maxDropped: number;
}

export function scenarioEnv(i: ScenarioInputs): Record<string, string> {
  const env: Record<string, string> = {
    [SCENARIO_ENV.baseUrl]: i.baseUrl,
    [SCENARIO_ENV.clientId]: i.clientId,
    [SCENARIO_ENV.clientSecret]: i.clientSecret,
    [SCENARIO_ENV.tokenLifetimeS]: String(i.tokenLifetimeS),
    [SCENARIO_ENV.clockToleranceS]: String(i.clockToleranceS),
    [SCENARIO_ENV.rate]: String(i.rate),
    [SCENARIO_ENV.durationS]: String(i.durationS),
    [SCENARIO_ENV.vus]: String(i.vus),
    [SCENARIO_ENV.runId]: i.runId,
  };
  if (i.business !== undefined) env[SCENARIO_ENV.business] = JSON.stringify(i.business);
  if (i.thresholds !== undefined) env[SCENARIO_ENV.thresholds] = JSON.stringify(i.thresholds);
  if (i.validateMethod !== undefined) env[SCENARIO_ENV.validateMethod] = i.validateMethod;
  if (i.retryBudgetS !== undefined) env[SCENARIO_ENV.retryBudgetS] = String(i.retryBudgetS);
  if (i.rateLimitEndpoint !== undefined) env[SCENARIO_ENV.rateLimitEndpoint] = i.rateLimitEndpoint;
  if (i.backoff !== undefined) {
    env[SCENARIO_ENV.backoffBaseMs] = String(i.backoff.baseMs);
    env[SCENARIO_ENV.backoffCapMs] = String(i.backoff.capMs);
    env[SCENARIO_ENV.maxRetries] = String(i.backoff.maxRetries);
  }
  if (i.rateProfile !== undefined) env[SCENARIO_ENV.rateProfile] = i.rateProfile;
  if (i.requestTimeoutS !== undefined) env[SCENARIO_ENV.requestTimeoutS] = String(i.requestTimeoutS);
  if (i.fleet !== undefined) env[SCENARIO_ENV.fleet] = JSON.stringify(i.fleet);
  if (i.cut !== undefined) env[SCENARIO_ENV.cut] = JSON.stringify(i.cut);
  if (i.maxCalls !== undefined) env[SCENARIO_ENV.maxCalls] = String(i.maxCalls);
  return env;
}

/**
 * k6's built-in metrics (HTTP and execution): every scenario may put thresholds on them, and the
 * Node side summarises them in fixed fields rather than as a scenario's own figures.
 */
export const K6_BUILTIN_METRICS: readonly string[] = [
  'checks',
  'data_received',
  'data_sent',
  'dropped_iterations',
  'http_req_blocked',
  'http_req_connecting',
  'http_req_duration',
  'http_req_failed',
  'http_req_receiving',
  'http_req_sending',
  'http_req_tls_handshaking',
  'http_req_waiting',
  'http_reqs',
  'iteration_duration',
  'iterations',
  'vus',
  'vus_max',
];
