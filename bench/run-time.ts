// Bench 10: what a user waits for, end to end, as child processes: `npm start` (the main job
// against the built-in emulator), and, when asked for, the suite (`npm test`) and `.ci/run`.
// Wall time from spawn to exit, and the CPU the process and everything it started used (reaped
// children's CPU: k6 and vitest's workers included), which a busy machine does not inflate as much.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { delta, reapedChildrenCpuSeconds, runCommand } from './proc.js';

export interface TimedCommand {
  what: string;
  wallMs: number;
  /** user + system of the command and its descendants; undefined off Linux. */
  cpuS: number | undefined;
  outcome: string;
  /** `run`'s own closing line: each stage's time. */
  stages?: string;
  /** Some run did not end in exit 0 and PASS: its time is no goal met, however short. */
  notPassed?: true;
}

/** One main job takes under a minute; this only bounds a hang. */
const RUN_TIMEOUT_MS = 5 * 60_000;
const SUITE_TIMEOUT_MS = 30 * 60_000;

/** The environment without CES_* variables: no configured target can turn a run towards it. */
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^CES_/i.test(k)));

async function timed(
  what: string,
  file: string,
  args: string[],
  opts: { cwd: string; timeoutMs: number },
): Promise<TimedCommand & { stdout: string }> {
  const cpuBefore = reapedChildrenCpuSeconds();
  const r = await runCommand(file, args, { timeoutMs: opts.timeoutMs, env: cleanEnv(), cwd: opts.cwd });
  const cpuS = delta(reapedChildrenCpuSeconds(), cpuBefore);
  const outcome = r.timedOut ? `timed out after ${opts.timeoutMs / 1000} s` : `exit ${String(r.code)}`;
  return { what, wallMs: r.wallMs, cpuS, outcome, stdout: r.stdout };
}

/** The main job's runs: on a shared machine one run says little, so the median of a few leads. */
export const MAIN_JOB_RUNS = 3;

/**
 * `npm start` as a user runs it (the command it runs, `ces-harness run`, without npm's own start):
 * in a folder with no config, against the built-in emulator, `runs` times one after another. The
 * median run's wall time, CPU and stage times; the outcome names every run's exit and verdict and
 * the spread, so a failing or an outlying run is never hidden behind the median.
 */
export async function benchMainJob(projectRoot: string, runs = MAIN_JOB_RUNS): Promise<TimedCommand> {
  const done: Array<TimedCommand & { verdict: string }> = [];
  for (let i = 0; i < runs; i++) done.push(await mainJobOnce(projectRoot));
  const byWall = [...done].sort((a, b) => a.wallMs - b.wallMs);
  const mid = byWall[Math.floor((byWall.length - 1) / 2)]!;
  const cpus = done.flatMap((r) => (r.cpuS === undefined ? [] : [r.cpuS])).sort((a, b) => a - b);
  const outcomes = new Map<string, number>();
  for (const r of done) outcomes.set(`${r.outcome}${r.verdict}`, (outcomes.get(`${r.outcome}${r.verdict}`) ?? 0) + 1);
  const seconds = (x: number) => `${(x / 1000).toFixed(1)} s`;
  const spread =
    runs > 1 ? `median of ${runs} (${seconds(byWall[0]!.wallMs)}–${seconds(byWall.at(-1)!.wallMs)}); ` : '';
  return {
    what: mid.what,
    wallMs: mid.wallMs,
    cpuS: cpus.length === done.length ? cpus[Math.floor((cpus.length - 1) / 2)] : undefined,
    outcome: `${spread}${[...outcomes].map(([o, n]) => (n > 1 ? `${o} ×${n}` : o)).join(', ')}`,
    ...(mid.stages ? { stages: mid.stages } : {}),
    ...(done.some((r) => r.outcome !== 'exit 0' || r.verdict !== ', PASS') ? { notPassed: true as const } : {}),
  };
}

async function mainJobOnce(projectRoot: string): Promise<TimedCommand & { verdict: string }> {
  const cwd = await mkdtemp(join(tmpdir(), 'ces-bench-run-'));
  try {
    const r = await timed(
      '`npm start` (ces-harness run, built-in emulator)',
      process.execPath,
      [join(projectRoot, 'bin', 'ces-harness.js'), 'run', '--report-dir', join(cwd, 'report')],
      { cwd, timeoutMs: RUN_TIMEOUT_MS },
    );
    const lines = r.stdout.split('\n');
    const verdict = lines
      .find((l) => /^(PASS|FAIL)\b/.test(l.trim()))
      ?.trim()
      .split(/\s+/)[0];
    const stages = lines.find((l) => l.startsWith('time: '))?.slice('time: '.length);
    return {
      what: r.what,
      wallMs: r.wallMs,
      cpuS: r.cpuS,
      outcome: r.outcome,
      verdict: verdict ? `, ${verdict}` : '',
      ...(stages ? { stages } : {}),
    };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

/** `npm test` and `.ci/run` in this working tree (not a fresh clone: caches may be warm). */
export async function benchSuite(projectRoot: string, progress: (m: string) => void): Promise<TimedCommand[]> {
  const out: TimedCommand[] = [];
  progress('suite: npm test');
  const npm = await timed('`npm test` (this working tree)', 'npm', ['test'], {
    cwd: projectRoot,
    timeoutMs: SUITE_TIMEOUT_MS,
  });
  out.push({ what: npm.what, wallMs: npm.wallMs, cpuS: npm.cpuS, outcome: npm.outcome });
  const ci = join(projectRoot, '.ci', 'run');
  if (existsSync(ci)) {
    progress('suite: .ci/run');
    const r = await timed('`.ci/run`', ci, [], { cwd: projectRoot, timeoutMs: SUITE_TIMEOUT_MS });
    out.push({ what: r.what, wallMs: r.wallMs, cpuS: r.cpuS, outcome: r.outcome });
  }
  return out;
}
