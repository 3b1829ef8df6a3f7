// Which limiter the emulator runs, from the serve flags or EmulatorOptions: one sustained rate for
// every kind, so `--limiter fixed --rate-limit 50 --window 2` admits the same long-run rate as the
// default bucket at 50 req/s (100 per 2 s window), and only the shape changes. The emulator is the
// test ground for the probe's identification: each kind here is one the probe must tell apart.

import { usageError } from '../errors.js';
import type { LimiterModel } from '../ratelimit/limiters/index.js';

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
