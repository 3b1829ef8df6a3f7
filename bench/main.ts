// `npm run bench`: timings and ratios measured in one run, printed as tables. Benchmarks report;
// nothing here asserts a timing or sets a failing exit code because something was slow.
//
//   1    wall time of a full `check` against the emulator (in-process and through the CLI)
//   2    the tls.* checks vs sslscan
//   3-4  k6 through the harness vs wrk, and the emulator's own ceiling
//   5    rate-limit sizing (bench/ratelimit.ts, when it exists)
//   6    false alarms: check and run against the emulator, idle and with the CPU saturated
//   6b   false alarms in a real sandbox: every profile, shared credentials, long-lived clients
//   7    ces-harness client: its overhead, and how soon it stops a hanging, flooding or leaking client
//   8    the fleet simulator vs real k6 fleets behind each limiter kind (bench/fleet.ts)
//   9    the run history: false alarms of its latency comparison, and the smallest regression flagged
//   10   `npm start` end to end, and the suite (`npm test`, `.ci/run`), as child processes
//   and last, issue 37's table: each row a user waits for, against its goal (bench/goals.ts)
//
// Names select sections, e.g. `npm run bench -- false-alarm` runs only section 6:
// check-time (1), tls (2), load (3-4), ratelimit (5), false-alarm (6), real-sandbox (6b), client (7),
// fleet (8), history (9), run or run-time (10), suite (10).
//
// Progress goes to stderr, the report to stdout. Loopback only; every child process is bounded in
// time and stopped before the bench exits.

import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { benchCheckTime, checkTimeSection } from './check-time.js';
import { goalsSection, type GoalInputs } from './goals.js';
import { MAIN_JOB_RUNS, benchMainJob, benchSuite, type TimedCommand } from './run-time.js';
import { benchClientTime } from './client-time.js';
import { benchLoad, loadSection } from './k6-vs-wrk.js';
import { machineBusySeconds, ownCpuSeconds, runCommand, which } from './proc.js';
import { startServe, type ServedEmulator } from './serve.js';
import { renderSection, type Section } from './stats.js';
import { benchTls, tlsSection } from './tls-vs-sslscan.js';
import { benchFalseAlarm, FALSE_ALARM_DEFAULTS, falseAlarmSection } from './false-alarm.js';
import { benchRealSandbox, REAL_SANDBOX_DEFAULTS, realSandboxSection } from './real-sandbox.js';
import { benchFleet } from './fleet.js';
import { benchHistory, HISTORY_DEFAULTS, historySection } from './history.js';
import { findProjectRoot } from '../src/fs/project-root.js';
import { locateK6, type LocatedK6 } from '../src/k6/index.js';

// `npm run bench -- --runs 3` for a quicker look while working on the bench itself.
const { values: args, positionals } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    'false-alarm-checks': { type: 'string', default: String(FALSE_ALARM_DEFAULTS.checks) },
    'false-alarm-runs': { type: 'string', default: String(FALSE_ALARM_DEFAULTS.runs) },
    'real-sandbox-runs': { type: 'string', default: String(REAL_SANDBOX_DEFAULTS.perCase) },
    'history-runs': { type: 'string', default: String(HISTORY_DEFAULTS.runs) },
    'history-per-step': { type: 'string', default: String(HISTORY_DEFAULTS.perStep) },
  },
  allowPositionals: true,
});
const SECTIONS = [
  'check-time',
  'tls',
  'load',
  'ratelimit',
  'false-alarm',
  'real-sandbox',
  'client',
  'fleet',
  'history',
  'run',
  // The same section by the name of its file (bench/run-time.ts).
  'run-time',
  'suite',
] as const;
const unknownSections = positionals.filter((p) => !(SECTIONS as readonly string[]).includes(p));
if (unknownSections.length > 0) {
  process.stderr.write(`bench: unknown section ${unknownSections.join(', ')}; known: ${SECTIONS.join(', ')}\n`);
  process.exit(2);
}
const wanted = (section: (typeof SECTIONS)[number]) => positionals.length === 0 || positionals.includes(section);
const count = (value: string | undefined, flag: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000) {
    process.stderr.write(
      `bench: --${flag} ${String(value)} is not a whole number from 0 to 1000; give e.g. --${flag} 5\n`,
    );
    process.exit(2);
  }
  return n;
};
const historyCounts = {
  runs: count(args['history-runs'], 'history-runs'),
  perStep: count(args['history-per-step'], 'history-per-step'),
};
const falseAlarmCounts = {
  checks: count(args['false-alarm-checks'], 'false-alarm-checks'),
  runs: count(args['false-alarm-runs'], 'false-alarm-runs'),
};
/** Repetitions of each timed run; the median of these is what the tables lead with. */
const RUNS = Math.max(1, Math.min(50, Math.round(Number(args.runs)) || 7));
/** Runs of the multi-second items (check with the rate-limit probe, the CLI check). */
const SLOW_RUNS = 5;
/** Seconds per load measurement (k6 and wrk alike). */
const LOAD_DURATION_S = 5;
/** k6 VUs and wrk connections: a typical harness concurrency, and enough to saturate one event loop. */
const CONCURRENCY = [16, 64];

const started = performance.now();
// Whatever else runs on this machine shares its cores with the bench: measured, not guessed.
const busyAtStart = machineBusySeconds();
const ownAtStart = ownCpuSeconds();
const root = findProjectRoot();
const progress = (m: string) => process.stderr.write(`bench: ${m}\n`);
const print = (s: Section) => process.stdout.write(`\n${renderSection(s)}`);

/** One bench item: its table, or one line saying why it could not run (the others still do). */
async function item(title: string, produce: () => Promise<Section | Section[]>): Promise<void> {
  try {
    // A section may be several tables (the fleet proof: one per limiter kind).
    for (const section of [await produce()].flat()) print(section);
  } catch (err) {
    print({ title, headers: [], rows: [], notes: [`not measured: ${(err as Error).message}`] });
    // A broken bench is a failure; a slow result never is.
    process.exitCode = 1;
  }
}

// --- the machine -----------------------------------------------------------------------------
const strip = (s: string) =>
  s
    .replace(/\x1b\[[0-9;]*m/g, '')
    .replace(/\s+/g, ' ')
    .trim();
async function toolVersion(name: string, args: string[], pick: RegExp): Promise<string> {
  const path = which(name);
  if (path === undefined) return 'not installed';
  try {
    const r = await runCommand(path, args, { timeoutMs: 10_000 });
    return pick.exec(strip(`${r.stdout} ${r.stderr}`))?.[1] ?? 'unknown version';
  } catch {
    return 'unknown version';
  }
}

let k6: LocatedK6 | undefined;
let k6Problem: string | undefined;
try {
  k6 = await locateK6(process.env, root);
} catch (err) {
  k6Problem = (err as Error).message;
}
const nproc = availableParallelism();
const machine: Array<[string, string]> = [
  ['cpus (nproc)', `${nproc} × ${cpus()[0]?.model.trim() ?? 'unknown'}`],
  ['memory', `${(totalmem() / 2 ** 30).toFixed(1)} GiB`],
  ['node', `${process.version} (OpenSSL ${process.versions.openssl})`],
  ['k6', k6 ? `v${k6.version} (${k6.path})` : `not found: ${k6Problem ?? ''}`],
  ['wrk', await toolVersion('wrk', ['-v'], /wrk (\S+)/)],
  ['sslscan', await toolVersion('sslscan', ['--version'], /^(\d+\.\d+\.\d+)/)],
  ['platform', `${process.platform}/${process.arch}`],
  [
    'load average',
    `${loadavg()
      .map((x) => x.toFixed(2))
      .join(' / ')} (1 / 5 / 15 min, at start)`,
  ],
];
const keyWidth = Math.max(...machine.map(([k]) => k.length));
process.stdout.write(
  `# ces-harness bench\n\n${machine.map(([k, v]) => `${k.padEnd(keyWidth)}  ${v}`).join('\n')}\n\n` +
    `Each timed item runs ${RUNS} times (the multi-second ones ${Math.min(RUNS, SLOW_RUNS)}); the median leads, min and max beside. No timing is asserted.\n`,
);

// What the closing goals table reads, filled by the sections that ran.
const goals: GoalInputs = {};

// --- 1: check wall time ----------------------------------------------------------------------
if (wanted('check-time')) {
  await item('1. Wall time of a full check', async () => {
    goals.checkTime = await benchCheckTime({
      runs: RUNS,
      slowRuns: Math.min(RUNS, SLOW_RUNS),
      projectRoot: root,
      progress,
    });
    return checkTimeSection(goals.checkTime);
  });
}

// --- 2-4: against one emulator in its own process ---------------------------------------------
if (wanted('tls') || wanted('load'))
  progress('starting `ces-harness serve --port 0 --rate-limit 0` in its own process');
let served: ServedEmulator | undefined;
try {
  if (wanted('tls') || wanted('load')) served = await startServe(root, ['--rate-limit', '0']);
} catch (err) {
  print({ title: '2-4. Not run', headers: [], rows: [], notes: [(err as Error).message] });
  process.exitCode = 1;
}
if (served) {
  const emulator = served;
  // Ctrl-C: stop the server first (the 'exit' hook in serve.ts is the last resort).
  const onSignal = () => {
    void emulator.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (wanted('tls'))
      await item('2. TLS matrix vs sslscan', async () =>
        tlsSection(await benchTls({ runs: RUNS, target: emulator.target, progress })),
      );
    if (wanted('load'))
      await item('3-4. k6 vs wrk, emulator ceiling', async () => {
        goals.load = await benchLoad({
          projectRoot: root,
          emulator,
          k6,
          ...(k6Problem !== undefined ? { k6Problem } : {}),
          durationS: LOAD_DURATION_S,
          cpus: nproc,
          concurrency: CONCURRENCY,
          progress,
        });
        return loadSection(goals.load);
      });
  } finally {
    await emulator.stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

// --- 5: rate-limit sizing, owned by bench/ratelimit.ts ----------------------------------------
// Bundled by esbuild when the file exists; when it does not, esbuild leaves the import as it is
// and it fails at run time, which the catch turns into "not there". The directive below is an
// ignore, not an expect-error, because tsc must pass both with and without the file.
// A module that is there but fails to load is reported, not mistaken for an absent one.
let rateLimitLoadError: string | undefined;
// @ts-ignore TS2307 while bench/ratelimit.ts does not exist
const rateLimitModule: unknown = await import('./ratelimit.js').catch((err: NodeJS.ErrnoException) => {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') rateLimitLoadError = err?.message ?? String(err);
  return undefined;
});
const benchRateLimit = (rateLimitModule as { benchRateLimit?: unknown } | undefined)?.benchRateLimit;
if (!wanted('ratelimit')) {
  // not asked for
} else if (typeof benchRateLimit === 'function') {
  progress('rate-limit sizing (bench/ratelimit.ts)');
  await item('5. Rate-limit sizing (bench/ratelimit.ts)', async () =>
    rateLimitSection(await (benchRateLimit as () => unknown)()),
  );
} else {
  const why = rateLimitLoadError
    ? `bench/ratelimit.ts did not load: ${rateLimitLoadError}`
    : rateLimitModule
      ? 'bench/ratelimit.ts exports no benchRateLimit function'
      : 'bench/ratelimit.ts not present';
  print({ title: '5. Rate-limit sizing', headers: [], rows: [], notes: [`${why}; skipped.`] });
  if (rateLimitLoadError) process.exitCode = 1;
}

// --- 6: false alarms, owned by bench/false-alarm.ts ---------------------------------------------
if (wanted('false-alarm')) {
  await item('6. False alarms', async () =>
    falseAlarmSection(
      await benchFalseAlarm({
        ...falseAlarmCounts,
        projectRoot: root,
        progress,
      }),
    ),
  );
}

// --- 6b: false alarms in a real sandbox, owned by bench/real-sandbox.ts ---------------------------
if (wanted('real-sandbox')) {
  const perCase = count(args['real-sandbox-runs'], 'real-sandbox-runs');
  await item('6b. False alarms in a real sandbox', async () =>
    realSandboxSection(await benchRealSandbox({ perCase, projectRoot: root, progress })),
  );
}

// --- 7: ces-harness client, owned by bench/client-time.ts --------------------------------------
if (wanted('client'))
  await item('7. ces-harness client', () =>
    benchClientTime({ runs: Math.min(RUNS, SLOW_RUNS), projectRoot: root, progress }),
  );
// --- 8: the fleet simulator vs k6, owned by bench/fleet.ts --------------------------------------
if (wanted('fleet')) {
  await item('8. Fleet: simulation vs k6', async () => {
    if (!k6) throw new Error(`k6 not found: ${k6Problem ?? ''}`);
    return benchFleet(k6.path, `${root}/dist/scenarios`, progress);
  });
}
// --- 9: the run history, owned by bench/history.ts -------------------------------------------------
if (wanted('history')) {
  await item('9. Run history', async () =>
    historySection(await benchHistory({ ...historyCounts, projectRoot: root, progress })),
  );
}

// --- 10: the main job and the suite, end to end ------------------------------------------------
const timedSection = (title: string, rows: TimedCommand[]): Section => ({
  title,
  headers: ['what', 'wall', 'CPU (with children)', 'outcome', 'stages'],
  rows: rows.map((t) => [
    t.what,
    `${(t.wallMs / 1000).toFixed(1)} s`,
    t.cpuS === undefined ? '-' : `${t.cpuS.toFixed(1)} s`,
    t.outcome,
    t.stages ?? '',
  ]),
  notes: [],
});
if (wanted('run') || positionals.includes('run-time')) {
  progress(`npm start: ces-harness run against the built-in emulator, ${MAIN_JOB_RUNS} times`);
  await item('10. `npm start` end to end', async () => {
    goals.mainJob = await benchMainJob(root);
    return timedSection(
      `10. \`npm start\` end to end (the median of ${MAIN_JOB_RUNS} runs, one at a time, each in an empty folder)`,
      [goals.mainJob],
    );
  });
}
if (wanted('suite')) {
  await item('10b. The suite end to end', async () => {
    goals.suite = await benchSuite(root, progress);
    return timedSection('10b. The suite end to end (this working tree)', goals.suite);
  });
}
print(goalsSection(goals));

const totalS = (performance.now() - started) / 1000;
const busy = machineBusySeconds();
const own = ownCpuSeconds();
const others =
  busy === undefined || busyAtStart === undefined || own === undefined || ownAtStart === undefined
    ? undefined
    : busy - busyAtStart - (own - ownAtStart);
process.stdout.write(
  `\nTotal bench time: ${totalS.toFixed(1)} s.` +
    (others === undefined
      ? '\n'
      : ` CPU used meanwhile by processes outside the bench: ${Math.max(0, others).toFixed(1)} core-seconds (${(Math.max(0, others) / totalS).toFixed(2)} of ${nproc} cores on average)${others / totalS > 0.1 ? '; the numbers above are noisier for it' : ''}.\n`),
);

/**
 * benchRateLimit()'s rows, whatever their shape: a Section as is, an array of records as a table
 * (their keys as columns), anything else as text lines.
 */
function rateLimitSection(out: unknown): Section {
  const title = '5. Rate-limit sizing (bench/ratelimit.ts)';
  const cell = (v: unknown): string =>
    typeof v === 'number'
      ? Number.isInteger(v)
        ? String(v)
        : v.toFixed(2)
      : typeof v === 'string'
        ? v
        : (JSON.stringify(v) ?? '');
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isRecord(out) && Array.isArray(out.headers) && Array.isArray(out.rows)) {
    return {
      title: typeof out.title === 'string' ? out.title : title,
      headers: out.headers.map(cell),
      rows: (out.rows as unknown[][]).map((r) => r.map(cell)),
      notes: Array.isArray(out.notes) ? out.notes.map(cell) : [],
    };
  }
  const rows =
    isRecord(out) && Array.isArray(out.rows) ? (out.rows as unknown[]) : Array.isArray(out) ? out : undefined;
  if (rows !== undefined && rows.every(isRecord)) {
    const headers = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return {
      title,
      headers,
      rows: rows.map((r) => headers.map((h) => cell(r[h]))),
      notes: isRecord(out) && Array.isArray(out.notes) ? out.notes.map(cell) : [],
    };
  }
  if (rows !== undefined) return { title, headers: [], rows: [], notes: rows.map(cell) };
  return {
    title,
    headers: [],
    rows: [],
    notes:
      out === undefined ? ['(benchRateLimit returned nothing; it may have printed its own output above)'] : [cell(out)],
  };
}
