// Real ground truth for fixed windows: rate-limiter-flexible's RateLimiterMemory in front of the
// emulator (its own limiter off), keyed by client address as a typical deployment keys it
// (test/helpers/flexible-limiter.ts). Its windows open at the client's first request after the
// last one ended, not on a wall-clock lattice: the probe must still read a fixed window, its
// limit and its length within 2 %, end by itself under 30 s and refuse at most a tenth.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { startFlexibleLimiter, type FlexibleLimit } from '../helpers/flexible-limiter.js';
import { describeEstimate, probe, relativeError } from './support.js';

describe('limiter identification behind rate-limiter-flexible (RateLimiterMemory)', () => {
  let emulator: Emulator;
  let tlsDir: string;

  beforeAll(async () => {
    tlsDir = await mkdtemp(join(tmpdir(), 'ces-flexible-tls-'));
    emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  });
  afterAll(async () => {
    await emulator?.close();
    if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
  });

  async function behindFlexible(limit: FlexibleLimit) {
    const front = await startFlexibleLimiter({ upstream: emulator.url, tlsDir, limit });
    try {
      return await probe({ url: front.url, caPem: emulator.caPem, credentials: emulator.credentials }, { maxRps: 200, maxDurationS: 60 });
    } finally {
      await front.stop();
    }
  }

  it.each([
    { points: 50, duration: 1 },
    { points: 100, duration: 2 },
  ])('reads $points per $duration s: a fixed window opened by the first request, within 2 %', async ({ points, duration }) => {
    const { estimate, seconds } = await behindFlexible({ points, duration });
    const context = describeEstimate(estimate);
    console.log(context);
    expect(estimate.limiter?.kind, context).toBe('fixed-window');
    if (estimate.limiter?.kind === 'fixed-window') {
      expect(estimate.limiter.limit, context).toBe(points);
      expect(relativeError(estimate.limiter.window_s, duration), context).toBeLessThanOrEqual(0.02);
    }
    expect(estimate.burst, context).toBe(points);
    expect(relativeError(estimate.sustained_rps, points / duration), context).toBeLessThanOrEqual(0.02);
    expect(estimate.partial, context).toBe(false);
    expect(estimate.requests_limited / estimate.requests_sent, context).toBeLessThanOrEqual(0.1);
    expect(seconds, context).toBeLessThan(30);
  }, 90_000);
});
