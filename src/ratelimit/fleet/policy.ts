// What one client instance does about the limit, as plain data: the five candidate policies the
// fleet sizing compares. Each names how long to wait after a refusal; two also gate every attempt
// (a client-side token bucket, the SRE book's adaptive throttling). No Node or k6 imports: the
// simulator and the k6 fleet scenario run the very same policy code (instance.ts).

import { backoffWindowMs, fullJitterMs } from '../../toolkit/backoff.js';
import type { Random } from './random.js';

export const FLEET_POLICY_NAMES = [
  'no-jitter',
  'full-jitter',
  'decorrelated-jitter',
  'client-bucket',
  'adaptive',
] as const;
export type FleetPolicyName = (typeof FLEET_POLICY_NAMES)[number];

export interface FleetPolicy {
  name: FleetPolicyName;
  /** First backoff step and its ceiling, ms; retries after this many refusals of one call give up. */
  base_ms: number;
  cap_ms: number;
  max_retries: number;
  /** Wait at least the refusal's Retry-After (then the policy's own wait on top). */
  honour_retry_after: boolean;
  /** client-bucket: this instance's own rate and burst; every attempt, retries included, takes a token. */
  rate_rps?: number;
  burst?: number;
  /** adaptive: K of the SRE book (accepts count K times), over a trailing window of this many seconds. */
  k?: number;
  window_s?: number;
}

/** The SRE book's K: a client rejects locally once its backend accepts fewer than half its requests. */
export const ADAPTIVE_K = 2;
/**
 * The book keeps two minutes of history; a sizing run lasts seconds, and a window longer than the
 * run only means "since the start", so 10 s lets the throttle both engage and let go within a run.
 */
export const ADAPTIVE_WINDOW_S = 10;

/**
 * The wait, ms, after refusal number `attempt` (0-based) of one logical call. `previousMs` is the
 * call's last wait (decorrelated jitter grows from it; the base for the first).
 */
export function backoffMs(p: FleetPolicy, attempt: number, previousMs: number, random: Random): number {
  switch (p.name) {
    case 'no-jitter':
      return backoffWindowMs(p.base_ms, p.cap_ms, attempt);
    case 'decorrelated-jitter': {
      const high = Math.max(p.base_ms, previousMs * 3);
      return Math.min(p.cap_ms, p.base_ms + random() * (high - p.base_ms));
    }
    case 'full-jitter':
    case 'client-bucket':
    case 'adaptive':
      return fullJitterMs(p.base_ms, p.cap_ms, attempt, random);
  }
}

/** One line a person reads: "full jitter 40–2000 ms, ≤ 6 retries, honours Retry-After". */
export function describePolicy(p: FleetPolicy): string {
  const gate =
    p.name === 'client-bucket'
      ? ` at ${p.rate_rps ?? '?'} req/s, burst ${p.burst ?? 1}`
      : p.name === 'adaptive'
        ? ` (K ${p.k ?? ADAPTIVE_K}, ${p.window_s ?? ADAPTIVE_WINDOW_S} s window)`
        : '';
  return `${p.name}${gate}, backoff ${p.base_ms}–${p.cap_ms} ms, ≤ ${p.max_retries} retries${p.honour_retry_after ? ', honours Retry-After' : ''}`;
}
