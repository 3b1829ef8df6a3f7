// Real ground truth for a limiter that delays before it refuses: nginx's limit_req without
// `nodelay`, its documented default form (excess requests wait their turn, up to `burst`; with
// `delay=K` the first K of them pass at once), in front of the emulator (its own limiter off). The
// probe must identify a queue, its rate within 2 %, its burst and delay= within a request, never
// call the queue's own wait "latency, not the limit", and recommend a rate below nginx's with the
// wait it adds stated.
//
// Without nginx: skipped with the reason on a developer machine, a failure on CI (CI=true).

import { describe, expect, it } from 'vitest';
import type { QueueModel } from '../../src/ratelimit/limiters/index.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { nginxMissing, startNginx, type NginxLimit } from '../helpers/nginx.js';
import { limitedUpstream } from '../helpers/limited-upstream.js';
import { describeEstimate, probeBehind, relativeError } from './support.js';

const missing = nginxMissing();
const skipWhy = missing !== undefined && !process.env.CI ? missing : undefined;
if (skipWhy) console.warn(`skipping the nginx queue tests: ${skipWhy}`);

describe.skipIf(skipWhy !== undefined)(
  `a queue: nginx limit_req without nodelay${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    // On CI a missing real limiter fails every test here with the reason, never a silent pass.
    const upstream = limitedUpstream('nginx-queue', missing, 'nginx is required on CI for the rate-limit ground truth');

    it.each<NginxLimit & { delay: number }>([
      { rate: 10, burst: 5, queue: {}, delay: 0 },
      { rate: 20, burst: 10, queue: { delay: 4 }, delay: 4 },
    ])(
      'identifies rate=$rate r/s burst=$burst delay=$delay as a queue and sizes it',
      async (limit) => {
        const { estimate } = await probeBehind(
          () => startNginx({ upstream: upstream.emulator.url, tlsDir: upstream.tlsDir, limit }),
          upstream.emulator,
        );
        const context = describeEstimate(estimate);
        expect(estimate.limiter?.kind, context).toBe('queue');
        const queue = estimate.limiter as QueueModel;
        expect(relativeError(estimate.sustained_rps, limit.rate), context).toBeLessThanOrEqual(0.02);
        expect(Math.abs(queue.burst - limit.burst), context).toBeLessThanOrEqual(1);
        expect(Math.abs(queue.delay - limit.delay), context).toBeLessThanOrEqual(1);
        expect(
          estimate.notes.some((n) => n.includes('latency, not the limit')),
          context,
        ).toBe(false);
        expect(estimate.partial, context).toBe(false);
        // Its wait is the limiter's own, answered at its rate: no service slower than the limit.
        expect(estimate.served_rps, context).toBeUndefined();
        const rec = recommend(estimate)!;
        expect(rec.target_rps, context).toBeLessThan(limit.rate);
        expect(rec.target_rps, context).toBeGreaterThanOrEqual(0.75 * limit.rate);
        expect(
          rec.why.find((w) => w.startsWith('queue: ')),
          context,
        ).toMatch(/the queue adds at most \d+ ms/);
      },
      60_000,
    );
  },
);
