// Real ground truth for fixed windows: rate-limiter-flexible's RateLimiterMemory in front of the
// emulator (its own limiter off), keyed by client address as a typical deployment keys it
// (test/helpers/flexible-limiter.ts). Its windows open at the client's first request after the
// last one ended, not on a wall-clock lattice: the probe must still read a fixed window, its limit
// and its length within 2 %, say where its edges fall, end by itself and refuse at most a tenth.
// The time goal (30 s) is the bench's (`npm run bench -- ratelimit`); here the bound has room for a
// busy machine (the 2 s window takes about 25 s on a quiet one).
//
// The package is a devDependency, always installed by npm ci: nothing to skip.

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
    emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir, clients: 2 });
  });
  afterAll(async () => {
    await emulator?.close();
    if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
  });

  async function behindFlexible(limit: FlexibleLimit, withSecondClient: boolean) {
    const front = await startFlexibleLimiter({ upstream: emulator.url, tlsDir, limit });
    try {
      return await probe(
        { url: front.url, caPem: emulator.caPem, credentials: emulator.credentials },
        {
          maxRps: 200,
          maxDurationS: 60,
          ...(withSecondClient ? { secondClient: emulator.environments[0]!.clients[1]! } : {}),
        },
      );
    } finally {
      await front.stop();
    }
  }

  it.each([
    // The second client (other credentials, same address) shows the limit is per address: shared.
    { points: 50, duration: 1, withSecondClient: true },
    { points: 100, duration: 2, withSecondClient: false },
  ])(
    'reads $points per $duration s: a fixed window starting at the first request after a window ends, within 2 %',
    async ({ points, duration, withSecondClient }) => {
      const { estimate, seconds } = await behindFlexible({ points, duration }, withSecondClient);
      const context = describeEstimate(estimate);
      expect(estimate.limiter?.kind, context).toBe('fixed-window');
      if (estimate.limiter?.kind === 'fixed-window') {
        expect(estimate.limiter.limit, context).toBe(points);
        expect(relativeError(estimate.limiter.window_s, duration), context).toBeLessThanOrEqual(0.02);
        expect(estimate.limiter.edges, context).toBe('first-request');
      }
      expect(estimate.notes.join('\n'), context).toMatch(
        /^identified: fixed window .* each starting at the first request after a window ends/m,
      );
      // A window has no refill to subtract: the burst is the limit.
      expect(estimate.burst, context).toBe(points);
      expect(relativeError(estimate.sustained_rps, points / duration), context).toBeLessThanOrEqual(0.02);
      if (withSecondClient) expect(estimate.scope, context).toBe('shared');
      // Ends by itself, politely (the old probe read one setting 47 % low and spent its whole budget).
      expect(estimate.partial, context).toBe(false);
      expect(estimate.requests_sent, context).toBeLessThan(3_000);
      expect(estimate.requests_limited / estimate.requests_sent, context).toBeLessThanOrEqual(0.1);
      expect(seconds, context).toBeLessThan(50);
    },
    90_000,
  );
});
