// A limiter that delays before it refuses (nginx's limit_req without nodelay, its documented default
// form), identified by the whole probe (discover) on a virtual clock from the model the emulator
// runs (limiters/queue.ts): its acceptances from idle wait their turn, one interval more each, so
// the answers' latency is the limiter's own queue, never "latency, not the limit". Its rate within
// 2 %, its burst and delay= exactly, and a recommendation below the rate that states the wait.

import { describe, expect, it } from 'vitest';
import type { LimiterModel, QueueModel } from '../../src/ratelimit/limiters/index.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel, type VirtualEndpoint } from './virtual-limit.js';

const nginx = (rate: number, burst: number, delay = 0): QueueModel => ({ kind: 'queue', rate_rps: rate, burst, delay });

interface Case {
  name: string;
  truth: QueueModel;
  world?: Partial<VirtualEndpoint>;
}

const cases: Case[] = [
  { name: 'rate=10r/s burst=5', truth: nginx(10, 5) },
  { name: 'rate=20r/s burst=10 delay=4', truth: nginx(20, 10, 4) },
  { name: 'rate=50r/s burst=20', truth: nginx(50, 20) },
  // Across a network (50 ± 10 ms each way): requests sent 5 ms apart reach it in another order.
  {
    name: 'rate=10r/s burst=5 across a network',
    truth: nginx(10, 5),
    world: { network: { oneWayMs: 50, jitterMs: 10 } },
  },
  {
    name: 'rate=20r/s burst=10 delay=4 across a network',
    truth: nginx(20, 10, 4),
    world: { network: { oneWayMs: 50, jitterMs: 10 } },
  },
];

describe('a queueing limiter (nginx limit_req without nodelay)', () => {
  it.each(cases)('$name: identified as a queue and sized', async ({ truth, world }) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429, ...world });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('queue');
    const queue = e.limiter as QueueModel;
    expect(relativeError(queue.rate_rps, truth.rate_rps), context).toBeLessThanOrEqual(0.02);
    expect(relativeError(e.sustained_rps, truth.rate_rps), context).toBeLessThanOrEqual(0.02);
    // Across a network the burst is good to one request, as a bucket's is (identify-kinds-virtual.test.ts).
    expect(Math.abs(queue.burst - truth.burst), context).toBeLessThanOrEqual(world?.network ? 1 : 0);
    expect(queue.delay, context).toBe(truth.delay);
    // The answers took up to the queue's wait: the limiter's own, not a slow endpoint's.
    expect(
      e.notes.some((n) => n.includes('latency, not the limit')),
      context,
    ).toBe(false);
    expect(e.partial, context).toBe(false);
    const rec = recommend(e)!;
    expect(rec.target_rps, context).toBeLessThan(truth.rate_rps);
    expect(rec.target_rps, context).toBeGreaterThanOrEqual(0.75 * truth.rate_rps);
    // The in-flight count is sized off the answers without the queue's wait: on loopback one, across
    // 100 ms of round trip two or three (the p95 of 0.4–0.5 s whole would give 4 to 8).
    expect(rec.max_concurrency, context).toBeLessThanOrEqual(world?.network ? 3 : 1);
    expect(
      rec.why.find((w) => w.startsWith('queue: ')),
      context,
    ).toMatch(/^queue: at [\d.]+ req\/s and at most \d+ in flight, the queue adds at most \d+ ms to a request/);
  });

  it.each<{ name: string; truth: LimiterModel; world: Partial<VirtualEndpoint> }>([
    // Slow answers (300 ± 100 ms) from a bucket: they take long, but not one interval more each.
    {
      name: 'a bucket behind slow answers',
      truth: { kind: 'bucket', rate_rps: 10, burst: 6 },
      world: { answerDelay: { meanMs: 300, jitterMs: 100 } },
    },
    {
      name: 'a bucket across a network',
      truth: { kind: 'bucket', rate_rps: 20, burst: 10 },
      world: { network: { oneWayMs: 50, jitterMs: 10 } },
    },
  ])('$name is no queue', async ({ truth, world }) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429, ...world });
    expect(e.limiter?.kind, JSON.stringify({ ...e, timeline: undefined })).toBe('bucket');
  });
});
