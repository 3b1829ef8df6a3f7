// Bench 1: how long a full `check` against the emulator takes.
//   (a) in-process, as `check --skip 'ratelimit.*' --expiry-wait 0` runs it, emulator included;
//   (b) the same with the rate-limit probe;
//   (c) the CLI itself, process start to exit, as a user sees it.
// Each run gets a fresh emulator (a fresh token store and a full bucket) and cold TLS calibrations,
// as a new CLI process would: a warm memo would time a run no user ever makes.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKS } from '../checks/index.js';
// token.same-before-expiry's span from the run's first token (docs/checks.md): the floor under (a).
import { SLIDE_VISIBLE_AFTER_MS as SLIDE_SPAN_MS } from '../checks/token.same-before-expiry.js';
import { DEFAULTS, EMBEDDED } from '../src/config/resolve.js';
import type { Target } from '../src/config/target.js';
import { createEmulator } from '../src/emulator/index.js';
import { Redactor } from '../src/http/redact.js';
import type { CheckResult } from '../src/report/model.js';
import { runConformance } from '../src/runner/conformance.js';
import { Ledger } from '../src/runner/ledger.js';
import { selectChecks } from '../src/runner/run-checks.js';
import { clearSecureContexts } from '../src/http/secure-contexts.js';
import { clearCalibrations } from '../src/tls/calibration.js';
import { delta, reapedChildrenCpuSeconds, runCommand } from './proc.js';
import { median, ms, slowest, summarize, type Section, type Summary } from './stats.js';

/** Issue 37's goals: (a) the full check in-process, (c) the CLI from process start to exit. */
export const GOAL_MS = 800;
export const CLI_GOAL_MS = 1_000;
/** One CLI check takes a few seconds; this only bounds a hang. */
const CLI_TIMEOUT_MS = 60_000;

export interface CheckTimeOptions {
  /** Runs of (a). */
  runs: number;
  /** Runs of (b) and (c), a few seconds each: fewer, to keep the whole bench near three minutes. */
  slowRuns: number;
  projectRoot: string;
  progress: (message: string) => void;
}

interface Measured {
  label: string;
  wall: Summary;
  goal: string;
  /** What the runs concluded, e.g. "30 pass, 5 skip" or "exit 0"; every distinct outcome once. */
  outcomes: string[];
}

export interface CheckTimeResult {
  checksWithoutRateLimit: number;
  checksWithRateLimit: number;
  a: Measured;
  aChecks: Measured;
  aStart: Measured;
  /** (a)'s trace, from its start: where its wall time goes (checkTimeSection's notes). */
  aFirstPhase: Measured;
  aOthersDone: Measured;
  aClosing: Measured;
  /** CPU of (a) (this process: harness and emulator) and of (c) (the CLI process and its worker). */
  aCpu: Measured;
  cCpu: Measured;
  b: Measured;
  bChecks: Measured;
  c: Measured;
  cliStart: Measured;
  /** The slowest checks of (a) by median duration. */
  slowestInA: Array<{ id: string; ms: number }>;
  /** What (a)'s end waited on, in words: the closing check's span or the other checks (medians). */
  floor: string;
}

const countStatuses = (results: readonly CheckResult[]): string => {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const bad = results
    .filter((r) => r.status === 'fail' || r.status === 'error' || r.status === 'warn')
    .map((r) => `${r.id} ${r.status}`);
  return [...counts].map(([s, n]) => `${n} ${s}`).join(', ') + (bad.length > 0 ? ` [${bad.join(', ')}]` : '');
};

interface InProcessRun {
  startMs: number;
  /** From t0: the first phase done (token.concurrent-issue-one-token, the run's first token). */
  firstPhaseMs: number;
  /** From t0: every check but the closing one done. */
  othersDoneMs: number;
  /** The closing token.same-before-expiry: its three calls, and the wait for the span a slide needs. */
  closingMs: number;
  cpuMs: number;
  checksMs: number;
  totalMs: number;
  outcome: string;
  durations: Array<{ id: string; ms: number }>;
}

/** One `check` as the CLI runs it against its embedded emulator, minus the terminal and report. */
async function inProcessOnce(skip: string[]): Promise<InProcessRun> {
  const { selected } = selectChecks(CHECKS, [], skip);
  clearCalibrations();
  // As a fresh process: every TLS context built again too.
  clearSecureContexts();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const ended = new Map<string, number>();
  // What prepareTarget starts when no target is configured.
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox', 'production'],
    tokenTtlS: EMBEDDED.tokenLifetimeS,
  });
  const t1 = performance.now();
  let results: CheckResult[];
  let t2: number;
  try {
    const [target, ...others] = emulator.environments.map((e): Target => ({
      environment: e.name,
      baseUrl: e.url,
      credentials: e.credentials,
      caPem: emulator.caPem,
      caFile: emulator.caFile,
      emulated: true,
    }));
    results = await runConformance({
      target: target!,
      others,
      // `--expiry-wait 0`: the expiry checks skip instead of waiting out the 4 s tokens.
      expect: { tokenLifetimeS: EMBEDDED.tokenLifetimeS, expiryWaitS: 0, clockToleranceS: EMBEDDED.clockToleranceS },
      business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
      rateLimit: {
        endpoint: DEFAULTS.rateLimitEndpoint,
        maxRps: DEFAULTS.maxRps,
        maxRequests: DEFAULTS.maxRequests,
        recoveryWaitS: 15,
        maxRetryAfterS: 120,
        probingAllowed: true,
      },
      ledger: Ledger.disabled(),
      checks: selected,
      redactor: new Redactor(),
      onResult: (r) => void ended.set(r.id, performance.now() - t0),
    });
    t2 = performance.now();
  } finally {
    await emulator.close();
  }
  const t3 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const closingIds = new Set(selected.filter((c) => c.phase === 'closing').map((c) => c.id));
  const firstIds = new Set(selected.filter((c) => c.phase === 'first').map((c) => c.id));
  const endOf = (keep: (id: string) => boolean) =>
    Math.max(0, ...[...ended].filter(([id]) => keep(id)).map(([, t]) => t));
  return {
    startMs: t1 - t0,
    firstPhaseMs: endOf((id) => firstIds.has(id)),
    othersDoneMs: endOf((id) => !closingIds.has(id)),
    closingMs: results.filter((r) => closingIds.has(r.id)).reduce((sum, r) => sum + r.duration_ms, 0),
    cpuMs: (cpu.user + cpu.system) / 1000,
    checksMs: t2 - t1,
    totalMs: t3 - t0,
    outcome: countStatuses(results),
    durations: results.map((r) => ({ id: r.id, ms: r.duration_ms })),
  };
}

/** `ces-harness --help`: node's start plus loading the CLI bundle, the floor under (c). */
async function cliHelpOnce(projectRoot: string): Promise<number> {
  const r = await runCommand(process.execPath, [join(projectRoot, 'bin', 'ces-harness.js'), '--help'], {
    timeoutMs: CLI_TIMEOUT_MS,
  });
  return r.wallMs;
}

async function cliOnce(projectRoot: string): Promise<{ wallMs: number; cpuMs?: number; outcome: string }> {
  // An empty working directory: no ces-harness.yaml can turn the run towards a real target, and
  // the report folder lands in a temporary place instead of reports/.
  const cwd = await mkdtemp(join(tmpdir(), 'ces-bench-cli-'));
  try {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^CES_/i.test(k)));
    const cpuBefore = reapedChildrenCpuSeconds();
    const r = await runCommand(
      process.execPath,
      [
        join(projectRoot, 'bin', 'ces-harness.js'),
        'check',
        '--skip',
        'ratelimit.*',
        '--expiry-wait',
        '0',
        '--report-dir',
        join(cwd, 'report'),
      ],
      { timeoutMs: CLI_TIMEOUT_MS, env, cwd },
    );
    const lines = r.stdout.trim().split('\n');
    const tail = lines.find((l) => /\d+ passed, \d+ failed/.test(l));
    // The terminal's result lines: "✗ fail  <id>  …"; the ids are what a reader needs to follow up.
    const bad = lines
      .map((l) => /^\S*\s*(fail|error|warn)\s+(\S+)/.exec(l.trim()))
      .filter((m) => m !== null)
      .map((m) => `${m[2]} ${m[1]}`);
    const outcome = r.timedOut
      ? `timed out after ${CLI_TIMEOUT_MS / 1000} s`
      : `exit ${String(r.code)}${tail ? ` (${tail.trim()})` : ''}${bad.length > 0 ? ` [${bad.join(', ')}]` : ''}`;
    const cpuS = delta(reapedChildrenCpuSeconds(), cpuBefore);
    return { wallMs: r.wallMs, ...(cpuS !== undefined ? { cpuMs: cpuS * 1000 } : {}), outcome };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

export async function benchCheckTime(opts: CheckTimeOptions): Promise<CheckTimeResult> {
  const withoutRl: InProcessRun[] = [];
  const withRl: InProcessRun[] = [];
  const cli: Array<{ wallMs: number; cpuMs?: number; outcome: string }> = [];
  const help: number[] = [];
  // Interleaved, so that whatever else the machine does during the bench falls on all three alike.
  for (let i = 0; i < Math.max(opts.runs, opts.slowRuns); i++) {
    if (i < opts.runs) {
      opts.progress(`check time ${i + 1}: in-process without ratelimit.*`);
      withoutRl.push(await inProcessOnce(['ratelimit.*']));
    }
    if (i < opts.slowRuns) {
      opts.progress(`check time ${i + 1}: in-process with ratelimit.*`);
      withRl.push(await inProcessOnce([]));
      opts.progress(`check time ${i + 1}: CLI`);
      cli.push(await cliOnce(opts.projectRoot));
      help.push(await cliHelpOnce(opts.projectRoot));
    }
  }
  const distinct = (xs: string[]) => [...new Set(xs)];
  const goal = `≤ ${ms(GOAL_MS)}`;
  const slowestInA = slowest(
    withoutRl.map((r) => r.durations),
    4,
  );
  const ofA = (label: string, pick: (r: InProcessRun) => number) => trace(label, withoutRl.map(pick));
  return {
    checksWithoutRateLimit: selectChecks(CHECKS, [], ['ratelimit.*']).selected.length,
    checksWithRateLimit: CHECKS.length,
    a: {
      label: '(a) in-process, no ratelimit.*: emulator start + checks + close',
      wall: summarize(withoutRl.map((r) => r.totalMs)),
      goal,
      outcomes: distinct(withoutRl.map((r) => r.outcome)),
    },
    aChecks: ofA('    of which the checks alone', (r) => r.checksMs),
    aStart: ofA('    of which emulator start (certificates, 2 listeners)', (r) => r.startMs),
    aFirstPhase: ofA("    trace: first phase done (the run's first token), from (a)'s start", (r) => r.firstPhaseMs),
    aOthersDone: ofA("    trace: every check but the closing one done, from (a)'s start", (r) => r.othersDoneMs),
    aClosing: ofA(
      '    trace: the closing token.same-before-expiry (its calls and the wait for a 1.1 s span)',
      (r) => r.closingMs,
    ),
    aCpu: ofA('    CPU of (a): harness and emulator, user + system', (r) => r.cpuMs),
    b: {
      label: '(b) in-process, with the rate-limit probe',
      wall: summarize(withRl.map((r) => r.totalMs)),
      goal: '-',
      outcomes: distinct(withRl.map((r) => r.outcome)),
    },
    bChecks: trace(
      '    of which the checks alone',
      withRl.map((r) => r.checksMs),
    ),
    c: {
      label: "(c) CLI `check --skip 'ratelimit.*' --expiry-wait 0`, process start to exit",
      wall: summarize(cli.map((r) => r.wallMs)),
      goal: `≤ ${ms(CLI_GOAL_MS)}`,
      outcomes: distinct(cli.map((r) => r.outcome)),
    },
    cCpu: trace(
      '    CPU of (c): the CLI process and its emulator worker, user + system',
      cli.flatMap((r) => (r.cpuMs !== undefined ? [r.cpuMs] : [])),
    ),
    cliStart: {
      label: '    for scale: CLI `--help` (node start + loading the CLI bundle)',
      wall: summarize(help),
      goal: '',
      outcomes: [],
    },
    slowestInA,
    floor: floorOf(
      median(withoutRl.map((r) => r.firstPhaseMs)),
      median(withoutRl.map((r) => r.othersDoneMs)),
      slowestInA[0],
    ),
  };
}

/** (a) ends after the later of its other checks and the closing check's span from the first token. */
function floorOf(firstPhaseMs: number, othersDoneMs: number, slowestCheck?: { id: string; ms: number }): string {
  const spanEndMs = firstPhaseMs + SLIDE_SPAN_MS;
  return spanEndMs >= othersDoneMs
    ? `token.same-before-expiry's span, its first token (${ms(firstPhaseMs)}) + ${ms(SLIDE_SPAN_MS)}`
    : `the other checks, done at ${ms(othersDoneMs)}${slowestCheck ? ` (slowest ${slowestCheck.id}, ${ms(slowestCheck.ms)})` : ''}`;
}

/** A row of figures under a goal's row: no goal or outcome of its own. */
const trace = (label: string, xs: number[]): Measured => ({ label, wall: summarize(xs), goal: '', outcomes: [] });

export function checkTimeSection(r: CheckTimeResult): Section {
  const rows = [
    r.a,
    r.aChecks,
    r.aStart,
    r.aFirstPhase,
    r.aOthersDone,
    r.aClosing,
    r.aCpu,
    r.b,
    r.bChecks,
    r.c,
    r.cCpu,
    r.cliStart,
  ];
  const [a, b, c, help] = [r.a, r.b, r.c, r.cliStart].map((m) => m.wall.median) as [number, number, number, number];
  return {
    title: '1. Wall time of a full check against the emulator (median of n runs)',
    headers: ['what', 'n', 'median', 'min', 'max', '1st run', 'goal', 'outcome'],
    rows: rows.map((m) => [
      m.label,
      String(m.wall.n),
      ms(m.wall.median),
      ms(m.wall.min),
      ms(m.wall.max),
      ms(m.wall.first),
      m.goal,
      m.outcomes.join(' | '),
    ]),
    notes: [
      `(a) runs ${r.checksWithoutRateLimit} checks, (b) all ${r.checksWithRateLimit}; both with the embedded emulator's settings (sandbox + production, ${EMBEDDED.tokenLifetimeS} s tokens, 50/s bucket) and --expiry-wait 0, so the expiry checks skip.`,
      `(a) is ${(a / GOAL_MS).toFixed(2)}× its ${ms(GOAL_MS)} goal; the rate-limit probe adds ${ms(b - a)} (b - a); the CLI adds ${ms(c - a)} over (a) (c - a), of which ${ms(help)} is node starting and loading the CLI bundle (\`--help\`); the rest is preflight, the terminal and the report files.`,
      `Slowest checks in (a), median duration: ${r.slowestInA.map((x) => `${x.id} ${ms(x.ms)}`).join(', ')}. The main phase runs checks concurrently, so the slowest one sets its end.`,
      `(a) ends after the later of its other checks and token.same-before-expiry's span, its first token plus ${ms(SLIDE_SPAN_MS)} (expires_at counts whole seconds, turning where in the second only the service knows: docs/checks.md), plus one call. Here: ${r.floor}.`,
      'Every run starts a fresh emulator and clears the TLS calibration memo and the TLS contexts, as a new CLI process would.',
    ],
  };
}
