// The fleet simulator replays a queue (nginx limit_req without nodelay, limiters/queue.ts): what it
// admits beyond the rate is answered late, not refused, so a fleet that surges past it meets the
// queue's wait in its calls' time before it meets refusals.

import { describe, expect, it } from 'vitest';
import { queueDelayMs, type QueueModel } from '../../../src/ratelimit/limiters/index.js';
import { simulate, type SimulationSetup } from '../../../src/ratelimit/fleet/simulate.js';

const QUEUE: QueueModel = { kind: 'queue', rate_rps: 10, burst: 5, delay: 0 };

const fleet = (limiter: QueueModel, offeredRps: number): SimulationSetup => ({
  limiter,
  sharing: 'shared',
  instances: 8,
  policy: { name: 'full-jitter', base_ms: 50, cap_ms: 2_000, max_retries: 6, honour_retry_after: false },
  offered_rps: offeredRps,
  backlog: 0,
  duration_s: 20,
  latency_ms: 4,
  seed: 7,
  until: 'end',
});

// The same limiter letting its whole excess through at once (delay= the whole burst: nodelay).
const PROMPT: QueueModel = { ...QUEUE, delay: QUEUE.burst };

describe('simulate against a queue', () => {
  it('below its rate: nothing refused, but calls that come together wait their turn', () => {
    const queued = simulate(fleet(QUEUE, 9));
    const prompt = simulate(fleet(PROMPT, 9));
    expect(queued.refused).toBe(0);
    expect(prompt.refused).toBe(0);
    // At least one interval (100 ms) of the queue's wait in the slowest calls, never more than all of it.
    expect(queued.p99_ms!).toBeGreaterThanOrEqual(prompt.p99_ms! + 100);
    expect(queued.p99_ms!).toBeLessThanOrEqual(prompt.p99_ms! + queueDelayMs(QUEUE));
  });

  it('above its rate: no more than its rate admitted, the rest refused', () => {
    const queued = simulate(fleet(QUEUE, 15));
    expect(queued.goodput_rps).toBeLessThanOrEqual(10 + 6 / 20 + 1e-9);
    expect(queued.refused).toBeGreaterThan(0);
  });
});
