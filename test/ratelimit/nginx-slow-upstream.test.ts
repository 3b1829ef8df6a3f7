// Real ground truth for a limit faster than the service behind it: nginx's limit_req at 50 r/s
// (nodelay) in front of the emulator (its own limiter off) holding each request 30 ms on one worker,
// 33 a second: what nginx admits beyond that waits in line at the service. The probe must read
// nginx's rate within 5 %, the pace the service answered at within 5 % (served_rps), and recommend
// below the service's pace, not nginx's: at 80 % of 50 r/s a client's line grows by 7 requests a
// second until its calls time out. (virtually: test/ratelimit/served-behind-virtual.test.ts)
//
// Without nginx: skipped with the reason on a developer machine, a failure on CI (CI=true).

import { describe, expect, it } from 'vitest';
import { recommend } from '../../src/ratelimit/recommend.js';
import { nginxMissing, startNginx } from '../helpers/nginx.js';
import { limitedUpstream } from '../helpers/limited-upstream.js';
import { describeEstimate, probeBehind, relativeError } from './support.js';

const missing = nginxMissing();
const skipWhy = missing !== undefined && !process.env.CI ? missing : undefined;
if (skipWhy) console.warn(`skipping the nginx slow-upstream test: ${skipWhy}`);

const WORK_MS = 30;
const LIMIT = { rate: 50, burst: 20 };

describe.skipIf(skipWhy !== undefined)(
  `nginx limit_req in front of a slower service${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    // On CI a missing real limiter fails every test here with the reason, never a silent pass.
    const upstream = limitedUpstream('nginx-slow', missing, 'nginx is required on CI for the rate-limit ground truth', {
      workMs: WORK_MS,
    });

    it(`rate=${LIMIT.rate} r/s before one worker of ${WORK_MS} ms: the limit read, the client sized by the service's pace`, async () => {
      const { estimate } = await probeBehind(
        () => startNginx({ upstream: upstream.emulator.url, tlsDir: upstream.tlsDir, limit: LIMIT }),
        upstream.emulator,
      );
      const context = describeEstimate(estimate);
      const serves = 1000 / WORK_MS;
      expect(relativeError(estimate.sustained_rps, LIMIT.rate), context).toBeLessThanOrEqual(0.05);
      expect(relativeError(estimate.served_rps ?? null, serves), context).toBeLessThanOrEqual(0.05);
      const rec = recommend(estimate)!;
      expect(rec.target_rps, context).toBeLessThanOrEqual(0.8 * serves);
      expect(rec.target_rps, context).toBeGreaterThanOrEqual(0.7 * serves);
    }, 90_000);
  },
);
