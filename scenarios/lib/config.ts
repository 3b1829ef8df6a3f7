// Reads what a scenario needs from the environment variables the CLI passes to k6 (__ENV). Their
// names, defaults and the shared shapes are the Node ↔ k6 contract (src/k6/contract.ts), bundled
// in from there. A missing or malformed variable throws in the init context, so k6 stops before any
// request with a one-line error naming the variable (and never its value).

import {
  SCENARIO_DEFAULTS,
  SCENARIO_ENV as ENV,
  RATE_PROFILES,
  type Backoff,
  type RateProfile,
  type RoundCut,
  type ScenarioBasics,
} from '../../src/k6/contract.js';
import {
  HTTP_METHODS,
  RATE_LIMIT_ENDPOINTS,
  type BusinessCall,
  type BusinessCalls,
  type HttpMethod,
  type RateLimitEndpoint,
} from '../../src/spec/endpoints.js';
import { isJsonObject } from '../../src/spec/json-object.js';

export type ThresholdOverrides = Record<
  string,
  Array<string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string }>
>;

/** The inputs as a scenario sees them: every one given or defaulted, and checked. */
export interface ScenarioConfig extends ScenarioBasics {
  business: BusinessCalls;
  thresholdOverrides: ThresholdOverrides;
  summaryFile: string | undefined;
  runId: string | undefined;
  /** §4.3 leaves the method open; GET unless the target wants another. */
  validateMethod: HttpMethod;
  /** How long one logical call may spend waiting out 429s before it counts as lost. */
  retryBudgetS: number;
  /** Which endpoint the rate-limit scenario drives (config `rate_limit.endpoint`). */
  rateLimitEndpoint: RateLimitEndpoint;
  /** How 429s are retried when Retry-After is absent (the `ratelimit` command passes its recommendation). */
  backoff: Backoff;
  /** rate-limit's load shape: a spike above the limit (default), or a steady rate (the recommendation's proof). */
  rateProfile: RateProfile;
  /** How long one request may take before k6 gives up on it (request_timeout_s). */
  requestTimeoutS: number;
  /** The fleet scenario's run as parsed JSON, unchecked here (scenarios/fleet.ts checks it); undefined when not given. */
  fleet: unknown;
  /** rate-limit's proof round: when one that has certainly failed ends; undefined: it runs its duration. */
  cut: RoundCut | undefined;
  /** rate-limit: the most calls at once, waits for a 429 included; undefined: as many as the rate needs. */
  maxCalls: number | undefined;
}

function raw(name: string): string | undefined {
  const v = __ENV[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

function required(name: string): string {
  const v = raw(name);
  if (v === undefined)
    throw new Error(
      `${name} is not set; ces-harness passes it to k6, or set it yourself when running the bundle by hand`,
    );
  return v;
}

function num(name: string, fallback: number, min: number): number {
  const v = raw(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${v}"`);
  return n;
}

function json(name: string): unknown {
  const v = raw(name);
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v);
  } catch {
    throw new Error(`${name} is not valid JSON`);
  }
}

function businessCall(value: unknown, key: keyof BusinessCalls): BusinessCall {
  if (value === undefined) return { method: 'POST', body: {} };
  if (!isJsonObject(value)) throw new Error(`${ENV.business}.${key} must be an object {method, body}`);
  const method = String(value.method ?? 'POST').toUpperCase() as HttpMethod;
  if (!(HTTP_METHODS as readonly string[]).includes(method))
    throw new Error(`${ENV.business}.${key}.method must be one of ${HTTP_METHODS.join(', ')}`);
  return { method, body: value.body === undefined ? {} : value.body };
}

function business(): BusinessCalls {
  const v = json(ENV.business);
  if (v !== undefined && !isJsonObject(v))
    throw new Error(`${ENV.business} must be a JSON object {evaluation, ach_transactions}`);
  return {
    evaluation: businessCall(v?.evaluation, 'evaluation'),
    ach_transactions: businessCall(v?.ach_transactions, 'ach_transactions'),
  };
}

function thresholdOverrides(): ThresholdOverrides {
  const v = json(ENV.thresholds);
  if (v === undefined) return {};
  if (!isJsonObject(v)) throw new Error(`${ENV.thresholds} must be a JSON object of metric → [expression, …]`);
  const out: ThresholdOverrides = {};
  for (const [metric, list] of Object.entries(v)) {
    const items = Array.isArray(list) ? list : [list];
    for (const item of items) {
      const ok = typeof item === 'string' || (isJsonObject(item) && typeof item.threshold === 'string');
      if (!ok) throw new Error(`${ENV.thresholds}["${metric}"] must be a list of expressions such as "p(95)<500"`);
    }
    out[metric] = items as ThresholdOverrides[string];
  }
  return out;
}

function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const v = raw(name);
  if (v === undefined) return fallback;
  const upperOrSame = (allowed as readonly string[]).includes(v) ? v : v.toUpperCase();
  if (!(allowed as readonly string[]).includes(upperOrSame))
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return upperOrSame as T;
}

/** CES_CUT_JSON: every figure a number ≥ 0 (minRefusals ≥ 1), or the variable is named as wrong. */
function roundCut(): RoundCut | undefined {
  const v = json(ENV.cut);
  if (v === undefined) return undefined;
  const o = (isJsonObject(v) ? v : {}) as Record<string, unknown>;
  const fields = ['afterRefusalsS', 'minRefusals', 'atOnceWithinS', 'atOnceAfterS', 'maxDropped'] as const;
  if (!fields.every((f) => typeof o[f] === 'number' && o[f] >= (f === 'minRefusals' ? 1 : 0)))
    throw new Error(`${ENV.cut} must be an object of numbers ${fields.join(', ')} (minRefusals >= 1)`);
  return o as unknown as RoundCut;
}

/** Reads and validates the environment once per VU (init context). */
export function readConfig(): ScenarioConfig {
  const d = SCENARIO_DEFAULTS;
  return {
    baseUrl: required(ENV.baseUrl).replace(/\/+$/, ''),
    clientId: required(ENV.clientId),
    clientSecret: required(ENV.clientSecret),
    tokenLifetimeS: num(ENV.tokenLifetimeS, d.tokenLifetimeS, 1),
    clockToleranceS: num(ENV.clockToleranceS, d.clockToleranceS, 0),
    rate: num(ENV.rate, d.rate, 0.1),
    durationS: num(ENV.durationS, d.durationS, 1),
    vus: Math.round(num(ENV.vus, d.vus, 1)),
    business: business(),
    thresholdOverrides: thresholdOverrides(),
    summaryFile: raw(ENV.summaryFile),
    runId: raw(ENV.runId),
    validateMethod: choice(ENV.validateMethod, HTTP_METHODS, d.validateMethod),
    retryBudgetS: num(ENV.retryBudgetS, d.retryBudgetS, 0),
    rateLimitEndpoint: choice(ENV.rateLimitEndpoint, RATE_LIMIT_ENDPOINTS, d.rateLimitEndpoint),
    backoff: {
      baseMs: num(ENV.backoffBaseMs, d.backoff.baseMs, 1),
      capMs: num(ENV.backoffCapMs, d.backoff.capMs, 1),
      maxRetries: Math.round(num(ENV.maxRetries, d.backoff.maxRetries, 0)),
    },
    rateProfile: choice(ENV.rateProfile, RATE_PROFILES, d.rateProfile),
    requestTimeoutS: num(ENV.requestTimeoutS, d.requestTimeoutS, 0.5),
    fleet: json(ENV.fleet),
    cut: roundCut(),
    maxCalls: raw(ENV.maxCalls) === undefined ? undefined : Math.round(num(ENV.maxCalls, 1, 1)),
  };
}
