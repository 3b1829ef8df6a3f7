// The run history's latency comparison, measured (issue 11): how often it cries wolf over many
// unchanged `check` runs, idle and with every core saturated by stress-ng, and the smallest added
// business-endpoint latency it flags every time. The CLI is run as a user runs it, against an
// emulator in this process whose business endpoints take BASE ms; a regression is the same
// emulator restarted (same CA, same client) with more latency, judged against the same stored runs.

import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type EmulatorOptions } from '../src/emulator/index.js';
import { generateCertificates } from '../src/emulator/certs/generate.js';
import { median, noiseBand } from '../src/history/noise.js';
import { FIGURE_RULES } from '../src/history/figures.js';
import type { Change } from '../src/report/sections/since/model.js';
import { machineBusySeconds, runCommand } from './proc.js';
import { saturateCpu } from './saturate.js';
import type { Section } from './stats.js';

export const HISTORY_DEFAULTS = { runs: 30, perStep: 5, baseMs: 20, stepsMs: [5, 10, 20, 30, 50, 100] } as const;

// A saturated 2-core machine runs a check several times slower; a hang still ends as a non-pass.
const TIMEOUT_MS = 180_000;
const FIGURE = { subject: 'business.valid-token-accepted', name: 'latency_ms' } as const;

type Mode = 'idle' | 'saturated';

export interface HistoryBenchRow {
  mode: Mode;
  runs: number;
  /** Runs with at least 3 stored before them: the ones whose figures were judged at all. */
  judged: number;
  latencyAlarms: number;
  /** Any other regression a steady service caused (a check, a fact, the rate limit). */
  otherAlarms: string[];
  /** The latency figure over the unchanged runs, and the band the last run was judged against. */
  medianMs: number;
  /** The slowest value of the unchanged runs: how close steady noise came to the band's top. */
  maxMs: number;
  bandHighMs: number | undefined;
  /** Added ms → how many of perStep runs were flagged. */
  flagged: Array<{ addedMs: number; flagged: number; of: number }>;
  failedRuns: number;
  busyCores?: number;
}

export interface HistoryBenchOptions {
  runs: number;
  perStep: number;
  projectRoot: string;
  progress(message: string): void;
}

interface Since {
  history: string;
  changes: Change[];
}

export async function benchHistory(opts: HistoryBenchOptions): Promise<HistoryBenchRow[]> {
  const rows: HistoryBenchRow[] = [];
  for (const mode of ['idle', 'saturated'] as const) {
    const budgetS = ((opts.runs + opts.perStep * HISTORY_DEFAULTS.stepsMs.length) * TIMEOUT_MS) / 1000;
    const saturation = mode === 'saturated' ? await saturateCpu({ maxS: budgetS }) : undefined;
    if (saturation) opts.progress(`stress-ng --cpu ${saturation.workers} is saturating every core`);
    try {
      rows.push(await measure(mode, opts));
    } finally {
      await saturation?.stop();
    }
  }
  return rows;
}

async function measure(mode: Mode, opts: HistoryBenchOptions): Promise<HistoryBenchRow> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-bench-history-'));
  const credentials = { clientId: 'ces-bench-history', clientSecret: `bench-${process.pid}-${Date.now()}-secret` };
  const certificates = generateCertificates('127.0.0.1');
  const base: EmulatorOptions = {
    port: 0,
    credentials: [credentials],
    certificates,
    businessLatencyMs: HISTORY_DEFAULTS.baseMs,
  };
  const history = join(dir, 'history.jsonl');
  await writeFile(join(dir, 'ca.pem'), certificates.caPem);
  const env = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NO_COLOR: '1',
    BENCH_ID: credentials.clientId,
    BENCH_SECRET: credentials.clientSecret,
  };
  const busyBefore = machineBusySeconds();
  const startedMs = performance.now();
  let failedRuns = 0;

  /** One scheduled `check` (the rate-limit probe left out: it is not what is measured here). */
  const check = async (url: string, n: number): Promise<Since | undefined> => {
    await writeFile(
      join(dir, 'ces-harness.yaml'),
      [
        'environments:',
        '  sandbox:',
        `    base_url: ${url}`,
        '    client_id: ${BENCH_ID}',
        '    client_secret: ${BENCH_SECRET}',
        '    ca_file: ca.pem',
        'history: history.jsonl',
        'ledger: ledger.json',
      ].join('\n'),
    );
    const report = join(dir, `r${n}`);
    const r = await runCommand(
      process.execPath,
      [
        join(opts.projectRoot, 'bin', 'ces-harness.js'),
        'check',
        '--config',
        join(dir, 'ces-harness.yaml'),
        '--skip',
        'ratelimit.*',
        '--report-dir',
        report,
      ],
      { timeoutMs: TIMEOUT_MS, cwd: dir, env },
    );
    if (r.code !== 0) failedRuns++;
    try {
      return (JSON.parse(await readFile(join(report, 'report.json'), 'utf8')) as { since_last_run?: Since })
        .since_last_run;
    } catch {
      return undefined;
    } finally {
      await rm(report, { recursive: true, force: true });
    }
  };
  const latencyFlagged = (since: Since | undefined) =>
    !!since?.changes.some((c) => c.action !== 'info' && c.subject === FIGURE.subject && c.name === FIGURE.name);

  const steady = await createEmulator(base);
  let latencyAlarms = 0;
  let judged = 0;
  const otherAlarms: string[] = [];
  try {
    for (let i = 1; i <= opts.runs; i++) {
      opts.progress(`history, ${mode}: unchanged run ${i}/${opts.runs}`);
      const since = await check(steady.url, i);
      if (i > 3) judged++;
      if (latencyFlagged(since)) latencyAlarms++;
      for (const c of since?.changes ?? [])
        if (c.action !== 'info' && !(c.subject === FIGURE.subject && c.name === FIGURE.name))
          otherAlarms.push(`run ${i}: ${c.text}`);
    }
  } finally {
    await steady.close();
  }
  const baselineText = await readFile(history, 'utf8');
  const latencies = baselineText
    .trim()
    .split('\n')
    .map(
      (l) =>
        (JSON.parse(l) as { checks: Record<string, { facts?: Record<string, number> }> }).checks[FIGURE.subject]
          ?.facts?.[FIGURE.name],
    )
    .filter((v): v is number => typeof v === 'number');
  const band = noiseBand(latencies.slice(-10), FIGURE_RULES[FIGURE.name]!);

  const flagged: HistoryBenchRow['flagged'] = [];
  for (const addedMs of HISTORY_DEFAULTS.stepsMs) {
    const slower = await createEmulator({ ...base, businessLatencyMs: HISTORY_DEFAULTS.baseMs + addedMs });
    let hits = 0;
    try {
      for (let j = 1; j <= opts.perStep; j++) {
        opts.progress(`history, ${mode}: +${addedMs} ms, run ${j}/${opts.perStep}`);
        // The same stored runs every time, addressed to the restarted service's port; a restart
        // forgets the ledger's tokens, so the ledger starts over with it.
        await writeFile(history, baselineText.replaceAll(steady.url, slower.url), { mode: 0o600 });
        if (j === 1) await rm(join(dir, 'ledger.json'), { force: true });
        if (latencyFlagged(await check(slower.url, 1000 + j))) hits++;
      }
    } finally {
      await slower.close();
    }
    flagged.push({ addedMs, flagged: hits, of: opts.perStep });
  }
  await copyFile(history, join(dir, 'last.jsonl')).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
  const busyAfter = machineBusySeconds();
  const elapsedS = (performance.now() - startedMs) / 1000;
  return {
    mode,
    runs: opts.runs,
    judged,
    latencyAlarms,
    otherAlarms,
    medianMs: median(latencies),
    maxMs: Math.max(...latencies),
    bandHighMs: band?.high,
    flagged,
    failedRuns,
    ...(busyBefore !== undefined && busyAfter !== undefined && elapsedS > 0
      ? { busyCores: (busyAfter - busyBefore) / elapsedS }
      : {}),
  };
}

/** The smallest added latency flagged in every run at it and at every larger step. */
export function smallestReliable(flagged: HistoryBenchRow['flagged']): number | undefined {
  let smallest: number | undefined;
  for (const step of [...flagged].reverse()) {
    if (step.flagged !== step.of) break;
    smallest = step.addedMs;
  }
  return smallest;
}

export function historySection(rows: readonly HistoryBenchRow[]): Section {
  const steps = rows[0]?.flagged.map((f) => `+${f.addedMs} ms`) ?? [];
  return {
    title: `7. Run history: false alarms of the latency comparison, and the smallest regression it flags (business endpoints ${HISTORY_DEFAULTS.baseMs} ms)`,
    headers: [
      'machine',
      'runs',
      'judged',
      'latency alarms',
      'other alarms',
      'median',
      'slowest',
      'band top',
      ...steps,
      'smallest flagged',
      'cpu busy',
    ],
    rows: rows.map((r) => [
      r.mode,
      String(r.runs),
      String(r.judged),
      String(r.latencyAlarms),
      String(r.otherAlarms.length),
      `${r.medianMs.toFixed(1)} ms`,
      `${r.maxMs.toFixed(1)} ms`,
      r.bandHighMs === undefined ? '-' : `${r.bandHighMs.toFixed(1)} ms`,
      ...r.flagged.map((f) => `${f.flagged}/${f.of}`),
      smallestReliable(r.flagged) === undefined ? 'none' : `+${smallestReliable(r.flagged)} ms`,
      r.busyCores === undefined ? '-' : `${r.busyCores.toFixed(2)}`,
    ]),
    notes: [
      'runs: unchanged `check --skip ratelimit.*` runs, each compared by the CLI with the ones stored before it; judged: those with at least 3 stored runs (fewer judge no figure).',
      'latency alarms: runs whose report flagged business.valid-token-accepted latency_ms, a false alarm every one (target 0); other alarms: any other regression of a steady service.',
      `+N ms: the emulator restarted with N ms more per business answer, ${rows[0]?.flagged[0]?.of ?? 0} runs each against the same stored runs; smallest flagged: the smallest N flagged in every run at it and above.`,
      ...rows.filter((r) => r.failedRuns > 0).map((r) => `${r.mode}: ${r.failedRuns} run(s) did not exit 0.`),
      ...rows.flatMap((r) => r.otherAlarms.slice(0, 5).map((a) => `${r.mode}: ${a}`)),
    ],
  };
}
