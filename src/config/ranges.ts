// The range of every number a user can give, flag or config key alike: one declaration each, so
// the flag table, the YAML schema and the README name the same bounds. A value outside its range
// is a usage error that names the range; `1e23` or `-5` seconds is a typo, never a setting.

export interface NumberRange {
  min: number;
  max: number;
  /** Whole numbers only (seconds the service counts in integers, counts of processes, ports…). */
  integer: boolean;
  /** What one unit is, for the message: "seconds", "requests per second". */
  unit: string;
}

const range = (min: number, max: number, unit: string, integer = true): NumberRange => ({ min, max, integer, unit });

// Bounds are generous: each is far past any real use and exists to catch a typo, not to judge.
export const RANGES = {
  /** §5.4 promises 24 h; two days leaves room for a service that differs, no more. */
  tokenLifetimeS: range(1, 172_800, 'seconds'),
  /** Waiting in-process for a token to expire: at most the longest lifetime above. */
  expiryWaitS: range(0, 172_800, 'seconds'),
  /** Clock skew beyond five minutes is a broken clock, not a tolerance. */
  clockToleranceS: range(0, 300, 'seconds', false),
  segments: range(1, 64, 'k6 processes'),
  parallelism: range(1, 1_000, 'pods'),
  port: range(0, 65_535, 'port'),
  /** 0 turns the emulator's limiter off. */
  emulatorRps: range(0, 100_000, 'requests per second', false),
  burst: range(0, 100_000, 'requests'),
  /** The emulator's added business-endpoint latency: ten seconds is past any test's patience. */
  businessLatencyMs: range(0, 10_000, 'milliseconds'),
  cutoverWindowDays: range(0, 3650, 'days'),
  /** The emulator's server certificate validity (serve --env-option ENV.certificate-days=N). */
  certificateDays: range(1, 3650, 'days'),
  sandboxHistoryAgeH: range(1, 720, 'hours'),
  /** The emulator's fixed window or sliding period: from a tenth of a second (quick tests) to an hour. */
  windowS: range(0.1, 3_600, 'seconds', false),
  fillIntervalS: range(0.001, 3_600, 'seconds', false),
  emulatorClients: range(1, 100, 'clients'),
  maxRps: range(0.1, 100_000, 'requests per second', false),
  maxRequests: range(1, 1_000_000, 'requests'),
  /** The rate-limit probe's time cap: an hour sizes windows of up to about 20 minutes. */
  probeDurationS: range(5, 3_600, 'seconds', false),
  /** How long a client's life the rate-limit proof covers: from a quick look to an hour (windows of up to half an hour). */
  horizonS: range(1, 3_600, 'seconds', false),
  productionMaxRequests: range(1, 100_000, 'requests'),
  /** The longest Retry-After a probe waits out to judge recovery: an hour is past any probe's patience. */
  maxRetryAfterS: range(1, 3_600, 'seconds'),
  /** How long one request of the checks may wait on the rate limit's Retry-Afters once its turn comes: an hour covers any window a check run could sit out. */
  limitWaitS: range(1, 3_600, 'seconds'),
  loadRate: range(0.1, 100_000, 'requests per second', false),
  durationS: range(1, 86_400, 'seconds', false),
  vus: range(1, 10_000, 'virtual users'),
  /** One request, connect to last byte: under half a second fails on any real network; past ten minutes it is a hang. */
  requestTimeoutS: range(0.5, 600, 'seconds', false),
  /** How long `ces-harness client` lets the user's client run per scenario before stopping it. */
  clientTimeLimitS: range(1, 3_600, 'seconds', false),
  /** Client instances sharing the limit (`--fleet`): simulated, so far beyond what one machine loads. */
  fleet: range(1, 100_000, 'client instances'),
} as const satisfies Record<string, NumberRange>;

export function inRange(r: NumberRange, n: number): boolean {
  return Number.isFinite(n) && n >= r.min && n <= r.max && (!r.integer || Number.isInteger(n));
}

/** "a whole number of seconds from 1 to 172800", "a number of requests per second from 0.1 to 100000". */
export function rangeText(r: NumberRange): string {
  const what = r.unit === 'port' ? 'a port number' : `${r.integer ? 'a whole number' : 'a number'} of ${r.unit}`;
  return `${what} from ${r.min} to ${r.max}`;
}

// Plain decimal notation with an optional exponent; no hex, no `Infinity`, no blanks that
// Number() would quietly read as 0.
const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

/** The number `text` spells, or a message that names the range and quotes what was given. */
export function parseInRange(text: string, r: NumberRange, name: string): number | string {
  const n = NUMERIC.test(text) ? Number(text) : Number.NaN;
  return inRange(r, n) ? n : `${name} must be ${rangeText(r)}, got ${text === '' ? '""' : text}`;
}
