// nginx's limit_req without `nodelay` as the limiter model replays it (limiters/queue.ts): what it
// admits, how long each admitted request waits its turn, and the bound the recommendation states
// for a client paced below its rate with a few requests in flight (queue-bound.ts).

import { describe, expect, it } from 'vitest';
import {
  burstSize,
  createLimiter,
  describeLimiter,
  queueDelayMs,
  sustainedRate,
  type QueueModel,
} from '../../src/ratelimit/limiters/index.js';
import { latencyBound } from '../../src/ratelimit/discover.js';
import { queueFreeLatencyMs, queueWaitBoundMs } from '../../src/ratelimit/queue-bound.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { seeded } from './seeded.js';

const nginx = (rate: number, burst: number, delay = 0): QueueModel => ({ kind: 'queue', rate_rps: rate, burst, delay });

/** Each request at `times` (ms): the wait it was given, or 'refused'. */
const waits = (model: QueueModel, times: number[]) => {
  const limiter = createLimiter(model);
  return times.map((t) => {
    const d = limiter.take(t);
    return d.ok ? Math.round(d.delayMs ?? 0) : 'refused';
  });
};

describe('queue (nginx limit_req without nodelay)', () => {
  it('lets burst + 1 through from idle, each past the first waiting one interval more, and refuses the rest at once', () => {
    // rate=10r/s burst=5: the first passes, five wait 100…500 ms, the seventh finds the queue full.
    expect(waits(nginx(10, 5), [0, 1, 2, 3, 4, 5, 6])).toEqual([0, 99, 198, 297, 396, 495, 'refused']);
    expect(burstSize(nginx(10, 5))).toBe(6);
    expect(sustainedRate(nginx(10, 5))).toBe(10);
  });

  it('with delay=K the first K of the excess pass without waiting', () => {
    // rate=20r/s burst=10 delay=4: five at once, then 50 ms, 100 ms … for the other six.
    const got = waits(nginx(20, 10, 4), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(got).toEqual([0, 0, 0, 0, 0, 50, 100, 150, 200, 250, 300, 'refused']);
    expect(queueDelayMs(nginx(20, 10, 4))).toBe(300);
  });

  it('drains at its rate: one more fits an interval later, and an idle queue takes a whole burst again', () => {
    const limiter = createLimiter(nginx(10, 2));
    for (const t of [0, 0, 0]) expect(limiter.take(t).ok).toBe(true);
    expect(limiter.take(50)).toEqual({ ok: false, retryAfterS: 1 });
    // 100 ms later the excess is one less: one more is admitted, waiting its two places' time.
    expect(limiter.take(100)).toEqual({ ok: true, delayMs: 200 });
    expect(limiter.take(101).ok).toBe(false);
    expect(waits(nginx(10, 2), [0, 0, 0, 5_000, 5_000, 5_000, 5_000])).toEqual([0, 100, 200, 0, 100, 200, 'refused']);
  });

  it('counts only what it admits: a client knocking on a full queue does not keep it full', () => {
    const limiter = createLimiter(nginx(10, 1));
    limiter.take(0);
    limiter.take(0);
    for (let t = 1; t < 100; t++) expect(limiter.take(t).ok).toBe(false);
    expect(limiter.take(100).ok).toBe(true);
  });

  it('says what it is in one line', () => {
    expect(describeLimiter(nginx(20, 10, 4))).toBe(
      'queue 20 req/s, burst 10 (the first 4 without delay): up to 6 wait, at most 300 ms, beyond that refused',
    );
  });
});

describe('latency the queue adds itself', () => {
  it('is never "latency, not the limit"; latency beyond it still is', () => {
    const queue = nginx(10, 5);
    // nginx 10r/s burst=5 as the probe read it: a p95 of 0.53 s, of which 0.5 s the queue's own wait.
    expect(latencyBound(531, 9.93, queue)).toBeUndefined();
    expect(latencyBound(531, 9.93, { kind: 'bucket', rate_rps: 9.93, burst: 6 })).toMatch(/latency, not the limit/);
    // A slow endpoint behind the queue: a second beyond the queue's wait is the answers' latency.
    expect(latencyBound(1531, 9.93, queue)).toMatch(/latency, not the limit/);
  });
});

describe('the queue delay a recommendation states', () => {
  // A client paced at `rps` with jittered send times (a timer that wakes up to half an interval
  // late, then catches up), never more than `inFlight` requests out: the longest wait it meets.
  function longestWait(model: QueueModel, rps: number, inFlight: number, serviceMs: number, seed: number) {
    const limiter = createLimiter(model);
    const random = seeded(seed);
    const out: number[] = [];
    let longest = 0;
    let refused = 0;
    let lastMs = 0;
    for (let i = 0; i < 2_000; i++) {
      // One after the other: a request late by a stall holds back the ones due after it.
      const due = Math.max(lastMs, (i * 1000) / rps + random() * (500 / rps) * (random() < 0.05 ? 20 : 1));
      // Never more than `inFlight` out: the next waits until enough answers came back.
      const pending = out.filter((t) => t > due).sort((a, b) => a - b);
      const at = pending.length >= inFlight ? pending[pending.length - inFlight]! : due;
      out.splice(0, out.length, ...pending.filter((t) => t > at));
      lastMs = at;
      const d = limiter.take(at);
      if (!d.ok) {
        refused++;
        continue;
      }
      longest = Math.max(longest, d.delayMs ?? 0);
      out.push(at + (d.delayMs ?? 0) + serviceMs);
    }
    return { longest, refused };
  }

  it.each([
    { model: nginx(10, 5), rps: 8, inFlight: 1 },
    { model: nginx(10, 5), rps: 8, inFlight: 3 },
    { model: nginx(20, 10, 4), rps: 16, inFlight: 6 },
    { model: nginx(50, 20), rps: 40, inFlight: 4 },
  ])('holds for $rps req/s with at most $inFlight in flight against $model.rate_rps/s burst $model.burst', (c) => {
    const bound = queueWaitBoundMs(c.model, c.inFlight);
    for (let seed = 1; seed <= 5; seed++) {
      const { longest, refused } = longestWait(c.model, c.rps, c.inFlight, 3, seed);
      expect(refused, `seed ${seed}`).toBe(0);
      expect(longest, `seed ${seed}`).toBeLessThanOrEqual(bound + 1e-6);
    }
  });

  it('sizes the in-flight count without the queue wait, and says the bound', () => {
    const queue = nginx(10, 5);
    // The probe's p95 was the full queue's wait (500 ms) on top of 2 ms answers.
    expect(queueFreeLatencyMs(502, queue)).toBe(2);
    const rec = recommend({
      sustained_rps: 10,
      burst: 6,
      recovery_s: 0.1,
      refill_s: 0.6,
      retry_after_header: 'absent',
      retry_after_max_s: null,
      latency_p95_ms: 502,
      limiter: queue,
    })!;
    expect(rec.target_rps).toBe(8);
    expect(rec.max_concurrency).toBe(1);
    expect(rec.why).toContain(
      'queue: at 8 req/s and at most 1 in flight, the queue adds at most 100 ms to a request (a client that offers more waits up to 500 ms, then is refused)',
    );
  });
});
