// One run of the whole `ratelimit` stage (bin/ces-harness.js ratelimit: the probe, the
// recommendation and its k6 proof loop) against a limiter on loopback, read back from its
// report.json, for bench/ratelimit.ts's rows. The report.json and the stage's terminal tail are
// kept in the row's evidence folder (reports/bench/ratelimit/<row>/, git-ignored), so a row read
// wrong can be explained afterwards; the rest of the report folder (k6's work files among it) is not.
// Needs the build (node scripts/build.mjs: dist/ and the k6 scenarios) and k6 in .tools.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../src/fs/project-root.js';
import type { ProofHorizon } from '../src/report/model.js';
import type { Estimate } from '../src/ratelimit/types.js';
import type { ProbeTarget, ProbeRun } from '../test/ratelimit/support.js';
import { runCommand } from './proc.js';
import { DEFAULT_HORIZON_S } from '../src/ratelimit/horizon.js';
import { MAX_PROOF_ROUNDS } from '../src/ratelimit/proof-loop.js';
import { proofTiming } from '../src/ratelimit/proof-timing.js';

/**
 * The stage's bound past the probe's cap: at most MAX_PROOF_ROUNDS proof rounds
 * (src/ratelimit/proof-loop.ts), each a wait for the limit to refill and k6 over the default
 * horizon or two of the longest window (src/ratelimit/proof-timing.ts: the probe's cap at most,
 * for the longest window it could have measured), k6's start and summary; and the token and
 * preflight calls around them.
 */
const K6_AROUND_S = 10;
const AROUND_S = 30;
export function stageTimeoutMs(capS: number): number {
  const round = proofTiming(capS, DEFAULT_HORIZON_S, capS, capS);
  return (capS + MAX_PROOF_ROUNDS * (round.settleS + round.proofS + K6_AROUND_S) + AROUND_S) * 1000;
}

/** Lines of the stage's terminal output kept beside its report. */
const TAIL_LINES = 60;

export interface StageRun extends ProbeRun {
  /** The whole stage, process start to exit. */
  stageSeconds: number;
  recommendedRps: number | null;
  /** The last proof round's share of 429s (0–1), null when no proof ran. */
  proof429: number | null;
  /** `holds (round N)`, `fails (round N)`, or `not run`. */
  proofVerdict: string;
  /** The proof's horizon as the report states it; absent when no proof ran. */
  horizon?: ProofHorizon;
}

export interface StageOptions {
  /** The probe's time cap (--max-duration), seconds. */
  capS: number;
  /** Where the row's report.json and stage.log are kept (emptied first). */
  evidenceDir: string;
  /** Values that must not be in what is kept: if one is, the files go and the row says so. */
  secrets: () => string[];
}

type ReportedRateLimit = Pick<
  Estimate,
  'sustained_rps' | 'limiter' | 'requests_sent' | 'requests_limited' | 'duration_s' | 'notes'
> & {
  recommendation?: { target_rps: number } | null;
  proof?: { rate_429: number } | null;
  proof_rounds?: { verdict: string; target_rps: number; scout_s?: number }[];
  proof_horizon?: ProofHorizon;
};

export async function stageRun(target: ProbeTarget, opts: StageOptions): Promise<StageRun | { error: string }> {
  const root = findProjectRoot();
  if (!existsSync(join(root, 'dist'))) return { error: 'skipped: the build is missing (node scripts/build.mjs)' };
  const stale = staleBuild(root);
  if (stale !== null) return { error: `skipped: ${stale} (node scripts/build.mjs)` };
  const dir = await mkdtemp(join(tmpdir(), 'ces-bench-stage-'));
  await rm(opts.evidenceDir, { recursive: true, force: true });
  await mkdir(opts.evidenceDir, { recursive: true });
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
        String(opts.capS),
      ],
      {
        timeoutMs: stageTimeoutMs(opts.capS),
        cwd: dir,
        env: {
          ...process.env,
          CES_CLIENT_ID: target.credentials.clientId,
          CES_CLIENT_SECRET: target.credentials.clientSecret,
        },
      },
    );
    const tail = `${r.stdout}\n${r.stderr}`.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
    await writeFile(
      join(opts.evidenceDir, 'stage.log'),
      `exit ${r.timedOut ? `timeout after ${stageTimeoutMs(opts.capS) / 1000} s` : r.code}, ${(r.wallMs / 1000).toFixed(1)} s\n${tail}\n`,
    );
    const report = await readFile(join(reportDir, 'report.json'), 'utf8').catch(() => undefined);
    if (report !== undefined) await copyFile(join(reportDir, 'report.json'), join(opts.evidenceDir, 'report.json'));
    const leaked = await leakIn(opts.evidenceDir, opts.secrets());
    if (leaked) {
      await rm(opts.evidenceDir, { recursive: true, force: true });
      return { error: `LEAK: ${leaked} held a secret or a whole token; evidence removed` };
    }
    if (report === undefined)
      return {
        error: `no report (exit ${r.timedOut ? 'timeout' : r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`,
      };
    return stageRunOf(report, r.wallMs);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The row's figures from the stage's report.json and its wall time, as the bench reads them. */
export function stageRunOf(report: string, wallMs: number): StageRun | { error: string } {
  const rl = (JSON.parse(report) as { rate_limit?: ReportedRateLimit }).rate_limit;
  if (!rl) return { error: 'the report has no rate_limit section' };
  const rounds = rl.proof_rounds ?? [];
  // The round that proved the rate given (a tell-apart round tried above it may come after it), or
  // the nearest above it that held over the horizon (a search gives its headroom below the hold, and
  // a client paced lower sends less: rate-limit-proof.ts heldRoundS), else the last round's verdict.
  const given = rl.recommendation?.target_rps;
  const holds = rounds.flatMap((p, i) =>
    p.verdict === 'holds' && p.scout_s === undefined && given !== undefined && p.target_rps >= given ? [i] : [],
  );
  const nearest = Math.min(...holds.map((i) => rounds[i]!.target_rps));
  const provedAt = holds.findLast((i) => rounds[i]!.target_rps === nearest) ?? -1;
  const shown = provedAt >= 0 ? provedAt : rounds.length - 1;
  const last = rounds[shown];
  return {
    estimate: { ...rl, notes: rl.notes ?? [] } as Estimate,
    samples: [],
    seconds: rl.duration_s,
    stageSeconds: wallMs / 1000,
    recommendedRps: rl.recommendation?.target_rps ?? null,
    proof429: rl.proof?.rate_429 ?? null,
    proofVerdict: last ? `${last.verdict} (round ${shown + 1})` : 'not run',
    ...(rl.proof_horizon ? { horizon: rl.proof_horizon } : {}),
  };
}

/**
 * A row's figures again from what it kept (report.json, and stage.log's first line "exit N, S s"),
 * so a bench stopped part-way still gives the rows it finished; null when the row kept no report.
 */
export async function evidenceRun(evidenceDir: string): Promise<StageRun | { error: string } | null> {
  const [report, log] = await Promise.all(
    ['report.json', 'stage.log'].map((f) => readFile(join(evidenceDir, f), 'utf8').catch(() => undefined)),
  );
  if (report === undefined || log === undefined) return null;
  const wallS = /^exit [^,]+, ([\d.]+) s/.exec(log)?.[1];
  return wallS === undefined
    ? { error: 'stage.log does not say how long the stage took' }
    : stageRunOf(report, Number(wallS) * 1000);
}

/** The kept file holding one of `secrets` whole, if any. */
export async function leakIn(evidenceDir: string, secrets: readonly string[]): Promise<string | undefined> {
  for (const name of ['report.json', 'stage.log']) {
    const text = await readFile(join(evidenceDir, name), 'utf8').catch(() => '');
    if (secrets.some((s) => s.length > 0 && text.includes(s))) return name;
  }
  return undefined;
}

/** What the build bundles: the stage runs dist/cli.js and k6 runs dist/scenarios/, never these sources. */
const BUNDLED = ['src', 'scenarios', 'checks'];
const BUILT = ['cli.js', join('scenarios', 'rate-limit.js')];

/**
 * Why the build in `root`'s dist/ is not what the sources say, or null: a stale dist/ runs an
 * older stage and k6 scenario under today's name (29 Nov: main's dist/ of 10:33 had no
 * admitted_again_s, added at 11:03, so the bench's bucket row could not tell a bucket from a
 * window after one round and took a third round of 120 s, 391 s against its 285).
 */
export function staleBuild(root: string): string | null {
  const missing = BUILT.find((f) => !existsSync(join(root, 'dist', f)));
  if (missing !== undefined) return `the build is missing dist/${missing}`;
  const builtMs = Math.min(...BUILT.map((f) => statSync(join(root, 'dist', f)).mtimeMs));
  for (const dir of BUNDLED)
    for (const file of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.ts') && statSync(join(root, dir, file)).mtimeMs > builtMs)
        return `the build is older than ${join(dir, file)}`;
  return null;
}
