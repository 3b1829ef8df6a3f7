// A window of refusals in front of the emulator's own limiter, shared by the two 429 scenarios.

import type { Behaviour } from '../types.js';
import { isBusinessPath } from './types.js';

export interface Storm {
  /** The business call (1-based) whose arrival starts the storm. */
  startAtCall: number;
  lengthMs: number;
}

/**
 * The longest a correct client may stay quiet because of the storm: an exponential backoff's last
 * wait can be as long as all its waits before it, that is the whole storm, and it may start just
 * before the storm ends.
 */
export const stormWaitMs = (storm: Storm): number => 2 * storm.lengthMs;

/** A `limit` that refuses every request of the window, with the whole seconds left as Retry-After. */
export function stormLimit(base: Behaviour, storm: Storm): Behaviour['limit'] {
  let businessCalls = 0;
  let startMs: number | undefined;
  return (ctx, key) => {
    if (startMs === undefined && isBusinessPath(ctx.req.path) && ++businessCalls >= storm.startAtCall)
      startMs = ctx.now;
    const leftMs = startMs === undefined ? 0 : startMs + storm.lengthMs - ctx.now;
    if (leftMs > 0) return { ok: false, retryAfterS: Math.max(1, Math.ceil(leftMs / 1000)) };
    return base.limit(ctx, key);
  };
}
