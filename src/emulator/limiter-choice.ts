// Which limiter the emulator runs, from the serve flags or EmulatorOptions: one sustained rate for
// every kind, so `--limiter fixed --rate-limit 50 --window 2` admits the same long-run rate as the
// default bucket at 50 req/s (100 per 2 s window), and only the shape changes. The emulator is the
// test ground for the probe's identification: each kind here is one the probe must tell apart.

import { inRange, rangeText, RANGES, type NumberRange } from '../config/ranges.js';
import { usageError } from '../errors.js';
import type { LimiterModel, Limits } from '../ratelimit/limiters/index.js';

/**
 * The flag's words for the kinds: counter is the sliding-window counter (go-chi/httprate); queue is
 * nginx's limit_req without `nodelay` (excess requests wait their turn, up to --burst).
 */
export const LIMITER_CHOICES = ['bucket', 'fixed', 'sliding', 'counter', 'queue'] as const;
export type LimiterChoice = (typeof LIMITER_CHOICES)[number];

export interface LimiterSettings {
  kind: LimiterChoice;
  /** Sustained requests per second per client; 0 turns the limiter off. */
  rps: number;
  /** Bucket only: requests that pass back to back from idle. */
  burst: number;
  /** Windows only: the window (fixed) or period (sliding), seconds. */
  windowS: number;
  /** Windows only: refused requests count against the client too. */
  countsRefused: boolean;
  /** Bucket only: refilled by a timer in batches every this many seconds; unset, continuously. */
  fillIntervalS?: number | undefined;
  /** Queue only: of the --burst excess requests, this many pass without waiting (nginx's `delay=`); unset, 0. */
  queueDelay?: number | undefined;
}

export function isLimiterChoice(word: string): word is LimiterChoice {
  return (LIMITER_CHOICES as readonly string[]).includes(word);
}

/** The model the emulator enforces, or null for no limit (rps 0). */
export function limiterModelOf(s: LimiterSettings): LimiterModel | null {
  if (s.rps <= 0) return null;
  if (s.kind === 'bucket')
    return {
      kind: 'bucket',
      rate_rps: s.rps,
      burst: s.burst,
      ...(s.fillIntervalS !== undefined ? { fill_interval_s: s.fillIntervalS } : {}),
    };
  // nginx's `burst`: what passes in excess of the rate, the first `delay` of it without waiting.
  if (s.kind === 'queue') {
    const delay = s.queueDelay ?? 0;
    if (delay > s.burst)
      throw usageError(`--queue-delay ${delay} is more than --burst ${s.burst}; give at most the burst`);
    return { kind: 'queue', rate_rps: s.rps, burst: s.burst, delay };
  }
  const limit = Math.round(s.rps * s.windowS);
  if (limit < 1)
    throw usageError(
      `--rate-limit ${s.rps} over a ${s.windowS} s window admits less than one request; raise --rate-limit or --window`,
    );
  // Edges at whole multiples of the window on the emulator's clock (epoch ms): phase 0.
  if (s.kind === 'fixed')
    return { kind: 'fixed-window', limit, window_s: s.windowS, phase_s: 0, counts_refused: s.countsRefused };
  if (s.kind === 'counter')
    return { kind: 'sliding-counter', limit, window_s: s.windowS, phase_s: 0, counts_refused: s.countsRefused };
  return { kind: 'sliding-window', limit, period_s: s.windowS, counts_refused: s.countsRefused };
}

/**
 * `--limiter` as given, each word one limit or several joined by `+`: a bare kind (`bucket`) takes
 * the flags (--rate-limit, --burst, --window, --counts-refused, --fill-interval); `KIND:KEY=V,…`
 * sets its own (`bucket:rate=10,burst=10+fixed:limit=600,window=60`, `queue:rate=10,burst=5,delay=2`). One bare kind is the limiter
 * as it always was, null when --rate-limit is 0; several are a set, every one of which must admit a
 * request (Kong's `second` and `minute`, two nginx zones).
 */
export function limitsFromFlags(words: readonly string[], flags: Omit<LimiterSettings, 'kind'>): Limits | null {
  const specs = words.flatMap((w) => w.split('+')).map((w) => w.trim());
  const [first, ...more] = specs;
  if (first === undefined || specs.some((w) => w === ''))
    throw usageError(`--limiter wants a kind (${LIMITER_CHOICES.join(', ')}), or limits joined by +`);
  if (more.length === 0 && !first.includes(':')) return limiterModelOf({ ...flags, kind: kindOf(first) });
  const set = specs.map((spec) => {
    const model = limiterModelOf(settingsOf(spec, flags));
    if (model === null)
      throw usageError(`--limiter ${spec}: a limit of a set admits no request at rate 0; give it rate=RPS above 0`);
    return model;
  });
  return set.length === 1 ? set[0]! : [set[0]!, ...set.slice(1)];
}

function kindOf(word: string): LimiterChoice {
  if (!isLimiterChoice(word))
    throw usageError(`--limiter ${word} is not a limiter the emulator runs; give one of ${LIMITER_CHOICES.join(', ')}`);
  return word;
}

/** The keys of `KIND:KEY=V,…`, each with the range its flag has. */
const KEYS: Record<string, NumberRange> = {
  rate: RANGES.emulatorRps,
  burst: RANGES.burst,
  window: RANGES.windowS,
  limit: RANGES.burst,
  'fill-interval': RANGES.fillIntervalS,
  // A queue's `delay=` (nginx): of its burst, how many pass without waiting.
  delay: RANGES.burst,
};

/** One limit's settings from `KIND:KEY=V,…`; what it leaves out comes from the flags. */
function settingsOf(spec: string, flags: Omit<LimiterSettings, 'kind'>): LimiterSettings {
  const colon = spec.indexOf(':');
  const kind = kindOf(colon === -1 ? spec : spec.slice(0, colon));
  const settings: LimiterSettings & { limit?: number } = { ...flags, kind };
  for (const pair of colon === -1 ? [] : spec.slice(colon + 1).split(',')) {
    const [key = '', value] = pair.split('=').map((p) => p.trim());
    if (key === 'counts-refused' && (value === undefined || value === 'yes' || value === 'no')) {
      settings.countsRefused = value !== 'no';
      continue;
    }
    const range = KEYS[key];
    const n = Number(value);
    if (range === undefined || value === undefined || value === '' || !inRange(range, n))
      throw usageError(
        range === undefined
          ? `--limiter ${spec}: unknown key "${key}"; give ${[...Object.keys(KEYS), 'counts-refused'].join(', ')}`
          : `--limiter ${spec}: ${key} wants ${rangeText(range)}`,
      );
    if (key === 'rate') settings.rps = n;
    else if (key === 'burst') settings.burst = n;
    else if (key === 'window') settings.windowS = n;
    else if (key === 'fill-interval') settings.fillIntervalS = n;
    else if (key === 'delay') settings.queueDelay = n;
    else settings.limit = n;
  }
  if (settings.limit !== undefined && kind === 'bucket')
    throw usageError(`--limiter ${spec}: a bucket has no limit per window; give rate=RPS and burst=N`);
  // A window's limit given as a count: the rate it makes over the window.
  if (settings.limit !== undefined) settings.rps = settings.limit / settings.windowS;
  return settings;
}
