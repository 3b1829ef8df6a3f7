// What ratelimit.limit-enforced records (its facts) against a token bucket on virtual time, the
// client idle or busy: the history's and cutover's tests of the burst count read them.

import { expect } from 'vitest';
import { check as limitEnforced } from '../../checks/ratelimit.limit-enforced.js';
import type { FactValue } from '../../src/history/record.js';
import { gcra } from '../ratelimit/virtual-limit.js';
import { world } from './burst-world.js';

/**
 * Against a bucket of `rps`/`burst`, the client sending each request after `busyMs` of work (14.5 ms:
 * about 69/s); `earlier`: the run's checks before the burst, their requests through the same bucket
 * (burst-world.ts).
 */
export async function burstFacts(
  limit: { rps: number; burst: number },
  busyMs = 0,
  earlier: { atMs: readonly number[]; gapMs: number } = { atMs: [], gapMs: 0 },
): Promise<Record<string, FactValue>> {
  const bucket = gcra(limit.rps, limit.burst);
  const { ctx, stop } = world({
    maxRps: 200,
    maxRequests: 3_000,
    latencyMs: 5,
    busyMsPerRequest: busyMs,
    status: (_, ms) => (bucket(ms) === undefined ? 200 : 429),
    earlierAtMs: earlier.atMs,
    gapMs: earlier.gapMs,
  });
  try {
    const outcome = await limitEnforced.run(ctx);
    expect(outcome.status, outcome.message).toBe('pass');
    return outcome.facts!;
  } finally {
    stop();
  }
}
