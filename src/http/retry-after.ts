// How long the client honours a Retry-After (src/spec/retry-after.ts says what it means). A value
// beyond what a polite client would wait is treated as absent, so the caller backs off instead.

import { retryAfterDelayMs } from '../spec/retry-after.js';

const MAX_HONOURED_MS = 120_000;

export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  const ms = retryAfterDelayMs(value, nowMs);
  return ms !== undefined && ms <= MAX_HONOURED_MS ? ms : undefined;
}

/**
 * Why a Retry-After is not waited out to judge recovery, or undefined when it is. Any valid value
 * up to the bound is honoured (a per-minute window truthfully says 61 s); past it the harness ran
 * out of patience, which says nothing about the service: the recovery is not tested, never failed.
 * `check`'s burst and the `ratelimit` probe share this one rule.
 */
export function beyondWaitBudget(seconds: number, maxS: number): string | undefined {
  if (seconds <= maxS) return undefined;
  return `Retry-After ${Math.round(seconds)} s exceeds the wait budget (${maxS} s); raise rate_limit.max_retry_after_s to test recovery`;
}
