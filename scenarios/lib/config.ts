// Everything a scenario needs comes from environment variables the CLI passes to k6 (__ENV), never
// from flags: k6 prints its command line in some error paths, and secrets must not be on it.
// A missing or malformed variable throws in the init context, so k6 stops before any request with
// a one-line error naming the variable (and never its value).

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface BusinessCall {
  method: HttpMethod;
  /** JSON-serialised as the request body; null sends no body. */
  body: unknown;
}

/** §4.4: the business endpoints' methods and payloads are the user's to give (config `business`). */
export interface BusinessCalls {
  evaluation: BusinessCall;
  ach_transactions: BusinessCall;
}

export type ThresholdOverrides = Record<string, Array<string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string }>>;

export interface ScenarioConfig {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The token lifetime the service promises (§5.4), seconds. */
  tokenLifetimeS: number;
  /** Allowed clock skew between k6 and the service, seconds. */
  clockToleranceS: number;
  /** Arrival rate, iterations per second. */
  rate: number;
  durationS: number;
  vus: number;
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
}

export interface Backoff {
  baseMs: number;
  capMs: number;
  maxRetries: number;
}

/** What a client does without advice: start at 100 ms, cap at 5 s, give up after 8 retries. */
export const DEFAULT_BACKOFF: Backoff = { baseMs: 100, capMs: 5_000, maxRetries: 8 };

export const RATE_PROFILES = ['spike', 'steady'] as const;
export type RateProfile = (typeof RATE_PROFILES)[number];

export const RATE_LIMIT_ENDPOINTS = ['business.evaluation', 'business.ach_transactions', 'tokens.validate', 'tokens.issue'] as const;
export type RateLimitEndpoint = (typeof RATE_LIMIT_ENDPOINTS)[number];

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function raw(name: string): string | undefined {
  const v = __ENV[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

function required(name: string): string {
  const v = raw(name);
  if (v === undefined) throw new Error(`${name} is not set; ces-harness passes it to k6, or set it yourself when running the bundle by hand`);
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function businessCall(value: unknown, key: keyof BusinessCalls): BusinessCall {
  if (value === undefined) return { method: 'POST', body: {} };
  if (!isObject(value)) throw new Error(`CES_BUSINESS_JSON.${key} must be an object {method, body}`);
  const method = String(value.method ?? 'POST').toUpperCase() as HttpMethod;
  if (!METHODS.includes(method)) throw new Error(`CES_BUSINESS_JSON.${key}.method must be one of ${METHODS.join(', ')}`);
  return { method, body: value.body === undefined ? {} : value.body };
}

function business(): BusinessCalls {
  const v = json('CES_BUSINESS_JSON');
  if (v !== undefined && !isObject(v)) throw new Error('CES_BUSINESS_JSON must be a JSON object {evaluation, ach_transactions}');
  return { evaluation: businessCall(v?.evaluation, 'evaluation'), ach_transactions: businessCall(v?.ach_transactions, 'ach_transactions') };
}

function thresholdOverrides(): ThresholdOverrides {
  const v = json('CES_THRESHOLDS_JSON');
  if (v === undefined) return {};
  if (!isObject(v)) throw new Error('CES_THRESHOLDS_JSON must be a JSON object of metric → [expression, …]');
  const out: ThresholdOverrides = {};
  for (const [metric, list] of Object.entries(v)) {
    const items = Array.isArray(list) ? list : [list];
    for (const item of items) {
      const ok = typeof item === 'string' || (isObject(item) && typeof item.threshold === 'string');
      if (!ok) throw new Error(`CES_THRESHOLDS_JSON["${metric}"] must be a list of expressions such as "p(95)<500"`);
    }
    out[metric] = items as ThresholdOverrides[string];
  }
  return out;
}

function choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const v = raw(name);
  if (v === undefined) return fallback;
  const upperOrSame = (allowed as readonly string[]).includes(v) ? v : v.toUpperCase();
  if (!(allowed as readonly string[]).includes(upperOrSame)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${v}"`);
  return upperOrSame as T;
}

/** Reads and validates the environment once per VU (init context). */
export function readConfig(): ScenarioConfig {
  return {
    baseUrl: required('CES_BASE_URL').replace(/\/+$/, ''),
    clientId: required('CES_CLIENT_ID'),
    clientSecret: required('CES_CLIENT_SECRET'),
    tokenLifetimeS: num('CES_TOKEN_LIFETIME_S', 86_400, 1),
    clockToleranceS: num('CES_CLOCK_TOLERANCE_S', 2, 0),
    rate: num('CES_RATE', 10, 0.1),
    durationS: num('CES_DURATION_S', 10, 1),
    vus: Math.round(num('CES_VUS', 5, 1)),
    business: business(),
    thresholdOverrides: thresholdOverrides(),
    summaryFile: raw('CES_SUMMARY_FILE'),
    runId: raw('CES_RUN_ID'),
    validateMethod: choice('CES_VALIDATE_METHOD', METHODS, 'GET'),
    retryBudgetS: num('CES_RETRY_BUDGET_S', 10, 0),
    rateLimitEndpoint: choice('CES_RATE_LIMIT_ENDPOINT', RATE_LIMIT_ENDPOINTS, 'business.evaluation'),
    backoff: {
      baseMs: num('CES_BACKOFF_BASE_MS', DEFAULT_BACKOFF.baseMs, 1),
      capMs: num('CES_BACKOFF_CAP_MS', DEFAULT_BACKOFF.capMs, 1),
      maxRetries: Math.round(num('CES_MAX_RETRIES', DEFAULT_BACKOFF.maxRetries, 0)),
    },
    rateProfile: choice('CES_RATE_PROFILE', RATE_PROFILES, 'spike'),
  };
}
