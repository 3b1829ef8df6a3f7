// `run`'s load against a conformant service limited far below the default rate: throughput at 20
// arrivals a second (four requests each at most) against a bucket of 2 a second loses calls past
// their retries, so it is not tested; once the sizing has proven a policy, it runs again at a rate
// sized from that policy and passes, and the report says at what rate and why. The real k6 against
// the emulator on 127.0.0.1; the sizing is a stand-in returning the policy (its own runs are tested
// elsewhere), so the rate the load is sized from is fixed.

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetJob } from '../../src/cli/commands/target-job.js';
import { createEmulator } from '../../src/emulator/index.js';
import { loadStage } from '../../src/stages/load.js';
import type { RateLimitResult, Report } from '../../src/report/model.js';
import { notProbed } from '../../src/ratelimit/result.js';
import { emulatorProject } from '../helpers/emulator-project.js';
import { testIo } from '../helpers/cli.js';

/**
 * What a sizing of a bucket of 2 a second gives: 1.6 a second, held by its proof; or nothing, its
 * proof having refuted it (proof-loop.ts gives no policy then).
 */
const sizing = (verdict: 'proven' | 'not proven'): RateLimitResult => ({
  ...notProbed('tokens.validate', 'a stand-in for the sizing'),
  sustained_rps: 2,
  proof_verdict: verdict,
  recommendation:
    verdict === 'proven'
      ? { target_rps: 1.6, max_concurrency: 1, backoff: { base_ms: 200, cap_ms: 1000, jitter: 'full', max_retries: 6 } }
      : null,
});

async function runAgainst(verdict: 'proven' | 'not proven') {
  const emulator = await createEmulator({ port: 0, rateLimit: { rps: 2, burst: 2 } });
  const { dir, config } = emulatorProject(emulator, 'ces-load-sized-');
  try {
    const { clientId, clientSecret } = emulator.credentials;
    const io = testIo({ cwd: dir, env: { CES_CLIENT_ID: clientId, CES_CLIENT_SECRET: clientSecret } });
    const reportDir = join(dir, 'report');
    const exit = await targetJob(
      { config, 'report-dir': reportDir, 'no-color': true, duration: 4 },
      {
        load: loadStage(['throughput'], { short: true, sizesAgain: true }),
        rateLimit: async () => sizing(verdict),
      },
      io,
    );
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;
    return { exit, report, stdout: io.output().stdout };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('run: a load the service limits below its default rate', () => {
  it.concurrent(
    'runs again at a rate sized from the proven policy, and passes saying so',
    async ({ expect }) => {
      const { exit, report, stdout } = await runAgainst('proven');
      const [throughput] = report.load!.scenarios;
      expect(throughput!.sized).toEqual({ default_rps: 20, rps: 0.4, policy_rps: 1.6, policy_proven: true });
      expect(throughput!.not_tested).toBeUndefined();
      expect(report.untested, JSON.stringify(report.untested)).toEqual([]);
      expect(report.verdict).toBe('pass');
      expect(exit).toBe(0);
      // The first run's line, then the sized one: both in the terminal, the report keeps the last.
      expect(stdout).toMatch(/^- not tested k6 throughput/m);
      expect(stdout).toMatch(
        /^✓ pass +k6 throughput .*run again at 0\.4\/s, sized from the 1\.6 req\/s this run proved/m,
      );
      expect(stdout).toMatch(/load sized again [\d.]+ s/);
    },
    120_000,
  );

  it.concurrent(
    'without a policy (its proof refuted it), not tested, as before',
    async ({ expect }) => {
      const { exit, report, stdout } = await runAgainst('not proven');
      const [throughput] = report.load!.scenarios;
      expect(throughput!.sized).toBeUndefined();
      expect(throughput!.not_tested).toMatch(/^throughput: the service's rate limit refused \d+ of its calls/);
      expect(report.untested).toEqual([{ stage: 'load', reason: throughput!.not_tested }]);
      expect(stdout).toMatch(
        /^load: 1 scenario\(s\) of \d+ s each, throughput not tested \(the rate limit\), the rest met their thresholds$/m,
      );
      expect(stdout).toMatch(/^NOT TESTED /m);
      expect(exit).toBe(1);
    },
    120_000,
  );
});
