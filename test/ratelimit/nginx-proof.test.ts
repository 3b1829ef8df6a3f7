// The k6 proof of a recommendation against nginx's limit_req (ground truth: nginx.test.ts's
// probe figures): a policy sized by the probe loses no request, a hasty one loses some. nginx sends
// no Retry-After, so the k6 clients live by the backoff alone: the policy decides. Its own file so
// that k6 runs in the real tier's `real` project, never beside the precision probes of `real-precise`
// (test/tiers.ts), which nginx.test.ts is in.
//
// Without nginx: skipped with the reason on a developer machine, a failure on CI (CI=true).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prove } from '../../src/ratelimit/prove.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { nginxMissing, startNginx } from '../helpers/nginx.js';
import { limitedUpstream } from '../helpers/limited-upstream.js';
import { bundleScenarios, realK6 } from '../k6/support.js';
import { BUSINESS, probe } from './support.js';

const missing = nginxMissing();
const k6 = await realK6();
const skipWhy = missing !== undefined && !process.env.CI ? missing : undefined;
if (skipWhy) console.warn(`skipping the nginx proof test: ${skipWhy}`);

describe.skipIf(skipWhy !== undefined)(
  `the k6 proof behind nginx limit_req${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    // On CI a missing real limiter fails every test here with the reason, never a silent pass.
    const upstream = limitedUpstream('nginx-proof', missing, 'nginx is required on CI for the rate-limit ground truth');

    it.skipIf(k6 === undefined)(
      'proves the recommendation with k6: no request lost, where a hasty policy loses some',
      async () => {
        const bundleDir = await bundleScenarios();
        const workDir = await mkdtemp(join(tmpdir(), 'ces-proof-'));
        const nginx = await startNginx({
          upstream: upstream.emulator.url,
          tlsDir: upstream.tlsDir,
          limit: { rate: 10, burst: 5 },
        });
        try {
          const { estimate } = await probe({
            url: nginx.url,
            caPem: upstream.emulator.caPem,
            credentials: upstream.emulator.credentials,
          });
          const policy = recommend(estimate)!;
          const run = (recommendation: Recommendation) =>
            prove({
              k6Path: k6!.path,
              bundleDir,
              workDir,
              target: {
                baseUrl: nginx.url,
                credentials: upstream.emulator.credentials,
                caFile: join(upstream.tlsDir, 'ca.pem'),
              },
              endpoint: 'tokens.validate',
              business: BUSINESS,
              recommendation,
              durationS: 4,
              tokenLifetimeS: 86_400,
              clockToleranceS: 1,
              runId: 'nginx-proof',
            });
          // Let the probe's drain refill first, as the stage does.
          await new Promise((r) => setTimeout(r, 1_500));
          const good = await run(policy);
          expect(good.proof, JSON.stringify(good.scenario.extra)).not.toBeNull();
          expect(good.proof!.lost_requests, JSON.stringify(good.scenario.extra)).toBe(0);
          expect(good.proof!.goodput_rps).toBeGreaterThan(policy.target_rps * 0.8);
          // Above the limit, retrying after 0–10 ms once: nginx keeps refusing and calls are lost.
          await new Promise((r) => setTimeout(r, 1_500));
          const hasty = await run({
            ...policy,
            target_rps: 15,
            backoff: { base_ms: 5, cap_ms: 10, jitter: 'full', max_retries: 1 },
            retry_budget_s: 2,
          });
          expect(hasty.proof!.lost_requests).toBeGreaterThan(0);
          expect(hasty.proof!.rate_429).toBeGreaterThan(0.1);
        } finally {
          await nginx.stop();
          await rm(workDir, { recursive: true, force: true });
          await rm(bundleDir, { recursive: true, force: true });
        }
      },
      90_000,
    );
  },
);
