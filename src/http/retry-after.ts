// How long the client honours a Retry-After (src/spec/retry-after.ts says what it means). A value
// beyond what a polite client would wait is treated as absent, so the caller backs off instead.

import { retryAfterDelayMs } from '../spec/retry-after.js';

const MAX_HONOURED_MS = 120_000;

export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  const ms = retryAfterDelayMs(value, nowMs);
  return ms !== undefined && ms <= MAX_HONOURED_MS ? ms : undefined;
}
