// A limiter that delays before it refuses (nginx's limit_req without nodelay, its documented default
// form), identified by the whole probe (discover) on a virtual clock from the model the emulator
// runs (limiters/queue.ts): its acceptances from idle wait their turn, one interval more each, so
// the answers' latency is the limiter's own queue, never "latency, not the limit". Its rate within
// 2 %, its burst and delay= exactly, and a recommendation below the rate that states the wait.

import { describe, expect, it } from 'vitest';
import { sustainedRate, type LimiterModel, type QueueModel } from '../../src/ratelimit/limiters/index.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { latencyBound } from '../../src/ratelimit/discover.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel, type VirtualEndpoint } from './virtual-limit.js';
import { expectSized, sizeTimed } from './stack-sizing.js';

const nginx = (rate: number, burst: number, delay = 0): QueueModel => ({ kind: 'queue', rate_rps: rate, burst, delay });
/** The emulator's `latency` profile: every answer 50 ± 20 ms after its request was decided. */
const LATE: Partial<VirtualEndpoint> = { answerDelay: { meanMs: 50, jitterMs: 20, seed: 3 } };

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

  // Not every queue is identified (a wait of 0.7 s at 30 req/s and a burst of 20; the emulator's
  // `latency` profile's 50 ± 20 ms on every answer), but its wait is still its own: the pings the
  // probe sends one at a time wait an interval at most, and those are what its timings rest on. Before,
  // `run` ended "not tested: answers take 0.72 s (p95) … latency, not the limit", exit 1.
  it.each<{ name: string; truth: QueueModel; world: Partial<VirtualEndpoint> }>([
    { name: 'rate=30r/s burst=20', truth: nginx(30, 20), world: {} },
    { name: 'rate=30r/s burst=20, answers 50 ± 20 ms late', truth: nginx(30, 20), world: LATE },
    { name: 'rate=10r/s burst=5, answers 50 ± 20 ms late', truth: nginx(10, 5), world: LATE },
  ])('$name, identified or not: never "latency, not the limit", the rate within 2 %', async ({ truth, world }) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429, ...world }, { maxDurationS: 30 });
    const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined });
    // The drain's answers waited in the queue: their p95 alone would have said latency.
    expect(e.latency_p95_ms!, context).toBeGreaterThan(500);
    expect(e.latency_alone_p95_ms!, context).toBeLessThan(500);
    expect(
      e.notes.some((n) => n.includes('latency, not the limit')),
      context,
    ).toBe(false);
    expect(latencyBound(e.latency_p95_ms, e.sustained_rps, e.limiter, e.latency_alone_p95_ms), context).toBeUndefined();
    expect(relativeError(e.sustained_rps, truth.rate_rps), context).toBeLessThanOrEqual(0.02);
  });

  it('a service whose every answer is slow, one at a time too, is still latency, not the limit', async () => {
    const e = await discoverVirtual(
      {
        limiter: () => fromModel({ kind: 'bucket', rate_rps: 10, burst: 6 }),
        status: 429,
        answerDelay: { meanMs: 900, jitterMs: 50 },
      },
      { maxDurationS: 30 },
    );
    // Too few answers came back alone to stand, or those that did were as slow.
    expect(e.latency_alone_p95_ms ?? Infinity, JSON.stringify(e.notes)).toBeGreaterThan(800);
    expect(e.notes[0], JSON.stringify(e.notes)).toMatch(
      /^not tested: answers take 0\.9\d? s \(p95\), .* latency, not the limit/,
    );
  });

  it.each<{ name: string; truth: LimiterModel; world: Partial<VirtualEndpoint>; refusedAtMost?: number }>([
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
    // A bucket before a worker that answers one request every 20 or 50 ms: its acceptances leave
    // that far apart, as a queue's do (queue-wait.ts refusedSlower).
    {
      name: 'a bucket before a worker of 20 ms a request',
      truth: { kind: 'bucket', rate_rps: 10, burst: 20 },
      world: { servedBehind: { everyMs: 20 } },
      refusedAtMost: 0.25,
    },
    {
      name: 'a bucket before a worker of 50 ms a request',
      truth: { kind: 'bucket', rate_rps: 5, burst: 10 },
      world: { servedBehind: { everyMs: 50 } },
      refusedAtMost: 0.25,
    },
  ])('$name is no queue', async ({ truth, world, refusedAtMost }) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429, ...world });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('bucket');
    expect(relativeError(e.sustained_rps, sustainedRate([truth])), context).toBeLessThanOrEqual(0.02);
    // Behind a worker its stream was not offered the worker's pace: a quarter of the probe's
    // requests refused at most (offered 1.5 times 50 req/s against 10, 43 % were).
    if (refusedAtMost !== undefined)
      expect(e.requests_limited / e.requests_sent, context).toBeLessThanOrEqual(refusedAtMost);
  });
});

// The probe reads a queue off its first drain's answers (queue-wait.ts queueIntervalOfDrain): each
// ping the recovery sends waits its turn, so its trickle timed the queue's wait (nginx 10r/s burst 5:
// one back every 265 ms, 3.8 req/s), and the confirming drain's wait and the stream's first offer
// followed it: 30 s of probe on the bench. Now the answers' interval sets both.
describe('a queue read from its first drain', () => {
  it.each<{ truth: QueueModel; atMostS: number }>([
    { truth: nginx(10, 5), atMostS: 20 },
    { truth: nginx(20, 10, 4), atMostS: 20 },
    { truth: nginx(50, 20), atMostS: 20 },
  ])('$truth.rate_rps r/s burst $truth.burst: sized in under $atMostS s of probe', async ({ truth, atMostS }) => {
    const e = await discoverVirtual({ limiter: () => fromModel(truth), status: 429 });
    const context = JSON.stringify({ ...e, timeline: undefined });
    expect(e.limiter?.kind, context).toBe('queue');
    expect(relativeError(e.sustained_rps, truth.rate_rps), context).toBeLessThanOrEqual(0.02);
    expect(e.duration_s, context).toBeLessThan(atMostS);
  });

  // nginx's queue of 5 r/s before an application's fixed window of 100 per 60 s (true 1.67 req/s),
  // 15 s into its minute: the probe ends before the minute shuts and reads the queue alone; the first
  // round over the horizon is refused on the minute, and the set is identified from all the evidence.
  it('a window behind it is found by the rounds, the queue read first', async () => {
    const truth = [
      nginx(5, 10),
      { kind: 'fixed-window', limit: 100, window_s: 60, phase_s: 15, counts_refused: false },
    ] as const;
    const sized = await sizeTimed([...truth], true);
    const context = JSON.stringify({ rounds: sized.rounds, identified: sized.identified });
    expect(sized.estimate.limiter?.kind, context).toBe('queue');
    expect(sized.rounds[0]?.verdict, context).toBe('fails');
    expectSized([...truth], sized, context);
  });
});
