// Real ground truth for sliding windows: HAProxy's stick-table `http_req_rate(<period>)` per
// client address, in front of the emulator (its own limiter off), in the two recipes found in the
// wild (test/helpers/haproxy.ts). Short settings (50 per second) keep each probe brief; the
// accuracy table at more settings is the bench's (`npm run bench -- ratelimit`), which also runs
// the recipe that counts refused requests: the probe does not yet read that one right on real
// HAProxy (it passes on the virtual model of HAProxy's counter, identify-virtual.test.ts).
//
// Without haproxy: skipped with the reason on a developer machine, a failure on CI (CI=true),
// where .ci/run installs it.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { haproxyMissing, startHaproxy, type SlidingLimit } from '../helpers/haproxy.js';
import { describeEstimate, probe, relativeError } from './support.js';

const missing = haproxyMissing();
const onCi = Boolean(process.env.CI);
const skipWhy = missing !== undefined && !onCi ? missing : undefined;
if (skipWhy) console.warn(`skipping the HAProxy rate-limit tests: ${skipWhy}`);

describe.skipIf(skipWhy !== undefined)(`limiter identification behind HAProxy${skipWhy ? ` (skipped: ${skipWhy})` : ''}`, () => {
  let emulator: Emulator;
  let tlsDir: string;

  beforeAll(async () => {
    if (missing) throw new Error(`haproxy is required on CI for the sliding-window ground truth: ${missing}`);
    tlsDir = await mkdtemp(join(tmpdir(), 'ces-haproxy-tls-'));
    emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  });
  afterAll(async () => {
    await emulator?.close();
    if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
  });

  async function behindHaproxy(limit: SlidingLimit) {
    const haproxy = await startHaproxy({ upstream: emulator.url, tlsDir, limit });
    try {
      return await probe({ url: haproxy.url, caPem: emulator.caPem, credentials: emulator.credentials }, { maxRps: 200, maxDurationS: 60 });
    } finally {
      await haproxy.stop();
    }
  }

  it('reads a sliding window that counts admitted requests only: kind, and the rate within 3 %', async () => {
    const { estimate } = await behindHaproxy({ limit: 50, periodMs: 1000, recipe: 'admitted' });
    const context = describeEstimate(estimate);
    expect(estimate.limiter?.kind, context).toBe('sliding-window');
    expect(estimate.limiter_evidence[0], context).toMatch(/kept out for most of a period/);
    // The drain counts the limit from idle; an answer overtaken in flight can cost one or two.
    expect(Math.abs((estimate.burst ?? 0) - 50), context).toBeLessThanOrEqual(3);
    expect(relativeError(estimate.sustained_rps, 50), context).toBeLessThanOrEqual(0.03);
    expect(estimate.partial, context).toBe(false);
  }, 90_000);
});
