// The rate-limit probe against the emulator's token bucket (one limiter per client) at several
// settings: the sustained rate within 5 % of the configured one, the burst, a truthful
// Retry-After; a limit that answers 503 is reported as non-conformant (not as "no limit"); no
// limit at all is reported as not observed. Real servers on 127.0.0.1 port 0, real requests, and
// real time on purpose: the virtual-clock cases (discover.test.ts, virtual-limit.ts) cannot show
// the probe holding its figures while a real event loop delivers timers late and answers out of order.

import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { toRateLimitResult } from '../../src/ratelimit/result.js';
import { describeEstimate, probe, relativeError } from './support.js';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
});

async function emulator(options: EmulatorOptions) {
  const emu = await createEmulator({ port: 0, ...options });
  open.push(emu);
  return { url: emu.url, caPem: emu.caPem, credentials: emu.credentials };
}

describe('discovery against the emulator token bucket', () => {
  it.each([
    { rps: 10, burst: 5, burstSlack: 2 },
    { rps: 25, burst: 25, burstSlack: 3 },
    { rps: 50, burst: 50, burstSlack: 5 },
    // The burst goes out at max_rps (200/s), only twice the refill rate: what refilled meanwhile is
    // as large as the burst itself, so a few milliseconds of stalled sender move the figure more.
    { rps: 100, burst: 20, burstSlack: 6 },
  ])(
    'finds $rps req/s (burst $burst) within 5 %, with a truthful Retry-After',
    async ({ rps, burst, burstSlack }) => {
      const { estimate, seconds } = await probe(await emulator({ rateLimit: { rps, burst } }));
      const context = describeEstimate(estimate);
      expect(estimate.limiting_status, context).toBe(429);
      expect(relativeError(estimate.sustained_rps, rps), context).toBeLessThanOrEqual(0.05);
      // The bucket admits `burst` at once; the probe's figure is what passed minus the refill meanwhile.
      expect(Math.abs((estimate.burst ?? 0) - burst), context).toBeLessThanOrEqual(burstSlack);
      expect(estimate.burst_from_idle, context).toBe(true);
      // The emulator's Retry-After is whole seconds until one request fits: waiting it out works.
      expect(estimate.retry_after_header, context).toBe('truthful');
      // Recovery: one request frees up every 1/rps; the probe sees that plus at most its own pacing.
      expect(estimate.recovery_s, context).toBeGreaterThan(0);
      expect(estimate.recovery_s!, context).toBeLessThan(3 / rps + 0.1);
      // Polite and bounded: refusals stay a minority, the probe ends by itself.
      expect(estimate.requests_limited, context).toBeLessThan(estimate.requests_sent / 2);
      expect(estimate.partial, context).toBe(false);
      expect(seconds).toBeLessThan(30);
      expect(estimate.timeline.reduce((n, p) => n + p.offered, 0)).toBeGreaterThan(0);

      const rec = recommend(estimate);
      expect(rec?.target_rps).toBeLessThan(rps);
      const result = toRateLimitResult(estimate, rec, null);
      expect(result.observed_429).toBe(true);
    },
    45_000,
  );

  it('reports a limit that refuses with 503 as non-conformant, with its figures, never as "no limit"', async () => {
    const { estimate } = await probe(
      await emulator({ rateLimit: { rps: 25, burst: 10 }, faults: ['unavailable-instead-of-429'] }),
    );
    const context = describeEstimate(estimate);
    expect(estimate.limiting_status, context).toBe(503);
    expect(relativeError(estimate.sustained_rps, 25), context).toBeLessThanOrEqual(0.05);
    const result = toRateLimitResult(estimate, recommend(estimate), null);
    expect(result.observed_429).toBe(false);
    expect(result.notes?.[0]).toMatch(/^non-conformant: §7 wants 429.*503/);
    expect(result.notes?.join('\n')).not.toMatch(/no limit/);
  }, 45_000);

  // Business answers of 2 s (the slow-business profile): 16 in flight offered 8 req/s and never met
  // the limit; sized from the latency (Little's law) the drain meets it. The identification then
  // times one answer after another, which is the latency, not the limit: said, never a sized figure.
  it('meets a 25 req/s limit on business answers that take 2 s, and says the figures are latency', async () => {
    const { estimate, seconds } = await probe(
      await emulator({ rateLimit: { rps: 25, burst: 25 }, profiles: ['slow-business'] }),
      { endpoint: 'business.evaluation', maxRps: 60, maxDurationS: 20 },
    );
    const context = describeEstimate(estimate);
    expect(estimate.limiting_status, context).toBe(429);
    expect(estimate.notes[0], context).toMatch(
      /^not tested: answers take 2(\.\d+)? s \(p95\), longer than .* latency, not the limit; probe a quicker endpoint/,
    );
    expect(estimate.partial, context).toBe(true);
    expect(seconds).toBeLessThan(30);
  }, 60_000);

  it('reports no limit at all as not observed, within its request budget', async () => {
    const { estimate, seconds } = await probe(await emulator({ faults: ['rate-limit-off'] }), { maxRequests: 300 });
    const context = describeEstimate(estimate);
    expect(estimate.limiting_status, context).toBeNull();
    expect(estimate.requests_limited).toBe(0);
    expect(estimate.requests_sent).toBeLessThanOrEqual(300);
    expect(seconds).toBeLessThan(10);
    const result = toRateLimitResult(estimate, recommend(estimate), null);
    expect(result.observed_429).toBe(false);
    expect(result.sustained_rps).toBeNull();
    expect(result.recommendation).toBeNull();
    expect(result.notes?.join('\n')).toMatch(/no limit observed: .* without a single refusal/);
  }, 30_000);

  it('never offers more than max_rps, nor sends more than max_requests', async () => {
    // 80 requests are too few for the whole probe (its window alone wants 60 acceptances).
    const { estimate, samples } = await probe(await emulator({ rateLimit: { rps: 20, burst: 10 } }), {
      maxRps: 40,
      maxRequests: 80,
    });
    expect(estimate.requests_sent).toBeLessThanOrEqual(80);
    expect(estimate.partial).toBe(true);
    expect(estimate.notes.join('\n')).toMatch(/max_requests \(80 requests\)/);
    // In any one-second window of sending, at most max_rps (+1 for the window's edge).
    const sent = samples.map((s) => s.sentMs).sort((a, b) => a - b);
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[i]! - sent[j]! >= 1000) j++;
      expect(i - j + 1).toBeLessThanOrEqual(41);
    }
  }, 30_000);

  it('stops on abort with a partial estimate', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_500);
    const started = Date.now();
    const { estimate } = await probe(await emulator({ rateLimit: { rps: 10, burst: 5 } }), {
      signal: controller.signal,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(estimate.partial).toBe(true);
    expect(estimate.notes).toContain('interrupted: the estimate is partial');
  }, 30_000);

  it('tells a per-client limit by a second client that still gets through', async () => {
    // The emulator keys POST /tokens by the client id in the body, valid or not: a second client
    // (here one the emulator does not know, answered 401) has its own bucket.
    const target = await emulator({ rateLimit: { rps: 20, burst: 10 } });
    const { estimate } = await probe(target, {
      endpoint: 'tokens.issue',
      secondClient: { clientId: 'second-client', clientSecret: 'not-a-secret-of-anyone' },
    });
    expect(estimate.scope, describeEstimate(estimate)).toBe('per-client');
  }, 45_000);
});
