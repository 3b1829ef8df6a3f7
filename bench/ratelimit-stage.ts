// One run of the whole `ratelimit` stage (bin/ces-harness.js ratelimit: the probe, the
// recommendation and its k6 proof loop) against a limiter on loopback, read back from its
// report.json, for bench/ratelimit.ts's rows that say whether the recommendation was proven.
// Needs the build (node scripts/build.mjs: dist/ and the k6 scenarios) and k6 in .tools.

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../src/fs/project-root.js';
import type { Estimate } from '../src/ratelimit/types.js';
import type { ProbeTarget, ProbeRun } from '../test/ratelimit/support.js';
import { runCommand } from './proc.js';

/** The probe's cap (as the tests give a real limiter), and the stage's: probe, three proof rounds and their waits. */
const PROBE_CAP_S = 60;
const STAGE_TIMEOUT_MS = 300_000;

export interface StageRun extends ProbeRun {
  recommendedRps: number | null;
  /** The last proof round's share of 429s (0–1), null when no proof ran. */
  proof429: number | null;
  /** `holds after N rounds`, `fails`, or why no proof ran. */
  proofVerdict: string;
}

type ReportedRateLimit = Pick<
  Estimate,
  'sustained_rps' | 'limiter' | 'requests_sent' | 'requests_limited' | 'duration_s'
> & {
  recommendation?: { target_rps: number } | null;
  proof?: { rate_429: number } | null;
  proof_rounds?: { verdict: string }[];
};

export async function stageRun(target: ProbeTarget): Promise<StageRun | { error: string }> {
  const root = findProjectRoot();
  if (!existsSync(join(root, 'dist'))) return { error: 'skipped: the build is missing (node scripts/build.mjs)' };
  const dir = await mkdtemp(join(tmpdir(), 'ces-bench-stage-'));
  try {
    const caFile = join(dir, 'ca.pem');
    await writeFile(caFile, target.caPem);
    const reportDir = join(dir, 'report');
    const r = await runCommand(
      process.execPath,
      [
        join(root, 'bin', 'ces-harness.js'),
        'ratelimit',
        '--base-url',
        target.url,
        '--ca',
        caFile,
        '--report-dir',
        reportDir,
        '--history',
        'off',
        '--ledger',
        'off',
        '--max-duration',
        String(PROBE_CAP_S),
      ],
      {
        timeoutMs: STAGE_TIMEOUT_MS,
        cwd: dir,
        env: {
          ...process.env,
          CES_CLIENT_ID: target.credentials.clientId,
          CES_CLIENT_SECRET: target.credentials.clientSecret,
        },
      },
    );
    const report = await readFile(join(reportDir, 'report.json'), 'utf8').catch(() => undefined);
    if (report === undefined)
      return {
        error: `no report (exit ${r.timedOut ? 'timeout' : r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`,
      };
    const rl = (JSON.parse(report) as { rate_limit?: ReportedRateLimit }).rate_limit;
    if (!rl) return { error: 'the report has no rate_limit section' };
    const rounds = rl.proof_rounds ?? [];
    const last = rounds[rounds.length - 1];
    return {
      estimate: { ...rl, requests_sent: rl.requests_sent, requests_limited: rl.requests_limited } as Estimate,
      samples: [],
      seconds: rl.duration_s,
      recommendedRps: rl.recommendation?.target_rps ?? null,
      proof429: rl.proof?.rate_429 ?? null,
      proofVerdict: last ? `${last.verdict} (round ${rounds.length})` : 'not run',
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
