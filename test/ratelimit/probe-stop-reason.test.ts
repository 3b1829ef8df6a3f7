// Why the probe stopped (probe/probe.ts outOfBudget): a streak of requests with no valid answer is
// told before the clock when both are reached by the time the probe looks, so a service gone silent
// reads as that (CI land35: a validate silent after 50 answers, its 1 s timeouts awaited together,
// read as the time running out, "45 of 94 probe requests got no valid answer").

import { describe, expect, it } from 'vitest';
import { ERROR_STREAK, Probe } from '../../src/ratelimit/probe/probe.js';
import { virtualClock } from '../../src/time/clock.js';
import type { ProbeCalls } from '../../src/ratelimit/calls.js';

/** A probe whose every request fails after `lateMs` on a virtual clock, with `maxDurationMs` to spend. */
function silentProbe(lateMs: number, maxDurationMs: number) {
  const clock = virtualClock();
  const calls: ProbeCalls = {
    endpoint: 'tokens.validate',
    primary: async () => {
      await clock.sleep(lateMs);
      throw new Error('no complete answer within 1 s');
    },
    overhead: { sent: 0, limited: 0 },
  };
  const probe = new Probe({
    calls,
    clock,
    maxRps: 200,
    maxRequests: 1000,
    maxDurationMs,
    maxInFlight: 64,
    maxRetryAfterS: 120,
    signal: undefined,
    progress: () => {},
    samples: [],
  });
  return probe;
}

describe('why the probe stopped', () => {
  it('a streak of unanswered requests that ended past the time limit: errors, not time', async () => {
    const probe = silentProbe(1000, 500);
    // Sent together, answered (timed out) together, a second later: past the 0.5 s limit.
    await Promise.all(Array.from({ length: ERROR_STREAK }, () => probe.send('drain')));
    expect(probe.outOfBudget()).toBe(true);
    expect(probe.stoppedBy).toBe('errors');
  });

  it('the time, when the streak is short of it', async () => {
    const probe = silentProbe(1000, 500);
    await Promise.all(Array.from({ length: ERROR_STREAK - 1 }, () => probe.send('drain')));
    expect(probe.outOfBudget()).toBe(true);
    expect(probe.stoppedBy).toBe('time');
  });

  it('a phase that would wait past the cap, after such a streak: errors', async () => {
    const probe = silentProbe(1000, 500);
    await Promise.all(Array.from({ length: ERROR_STREAK }, () => probe.send('drain')));
    probe.outOfTime();
    expect(probe.stoppedBy).toBe('errors');
  });
});
