// The false-alarm benchmark: `check` and `run` against the built-in emulator, many times, on an
// idle machine and with every core saturated by stress-ng. A conformant service must pass every
// time: each non-pass here is a false alarm (a timing edge judged too tightly, a spike a correct
// client cannot survive), and the target is 0. Only the CLI is run, as a user runs it.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { machineBusySeconds, runCommand } from './proc.js';
import { saturateCpu } from './saturate.js';
import { ms, summarize, type Section, type Summary } from './stats.js';

export const FALSE_ALARM_DEFAULTS = { checks: 20, runs: 5 } as const;

// Generous: a saturated machine runs everything slower, and a hang must still end as a non-pass.
const TIMEOUT_MS = { check: 180_000, run: 420_000 } as const;

type Command = keyof typeof TIMEOUT_MS;
type Mode = 'idle' | 'saturated';

export interface FalseAlarmRow {
  mode: Mode;
  command: Command;
  n: number;
  nonPass: number;
  wall: Summary;
  /** Exit code → how often, e.g. { "0": 19, "1": 1 }. */
  exits: Record<string, number>;
  /** Why the first few non-passes failed: the CLI's own ✗/FAIL lines. */
  reasons: string[];
  /** How busy the whole machine was meanwhile, in cores (shows that "saturated" really was). */
  busyCores?: number;
}

export interface FalseAlarmOptions {
  checks: number;
  runs: number;
  projectRoot: string;
  progress(message: string): void;
}

export async function benchFalseAlarm(opts: FalseAlarmOptions): Promise<FalseAlarmRow[]> {
  const rows: FalseAlarmRow[] = [];
  for (const mode of ['idle', 'saturated'] as const) {
    const perCommand = (c: Command) => (c === 'check' ? opts.checks : opts.runs);
    const budgetS = (['check', 'run'] as const).reduce((s, c) => s + (perCommand(c) * TIMEOUT_MS[c]) / 1000, 0);
    const saturation = mode === 'saturated' ? await saturateCpu({ maxS: budgetS }) : undefined;
    if (saturation) opts.progress(`stress-ng --cpu ${saturation.workers} is saturating every core`);
    try {
      for (const command of ['check', 'run'] as const)
        rows.push(await repeat(command, perCommand(command), mode, opts));
    } finally {
      await saturation?.stop();
    }
  }
  return rows;
}

async function repeat(command: Command, n: number, mode: Mode, opts: FalseAlarmOptions): Promise<FalseAlarmRow> {
  const walls: number[] = [];
  const exits: Record<string, number> = {};
  const reasons: string[] = [];
  const busyBefore = machineBusySeconds();
  const startedMs = performance.now();
  for (let i = 1; i <= n; i++) {
    opts.progress(`false alarms, ${mode}: ${command} ${i}/${n}`);
    // A folder of its own: no ces-harness.yaml is found, so the built-in emulator is tested.
    const cwd = await mkdtemp(join(tmpdir(), 'ces-bench-false-alarm-'));
    try {
      const r = await runCommand(
        process.execPath,
        [join(opts.projectRoot, 'bin', 'ces-harness.js'), command, '--report-dir', join(cwd, 'report')],
        {
          timeoutMs: TIMEOUT_MS[command],
          cwd,
          env: withoutTarget(process.env),
        },
      );
      walls.push(r.wallMs);
      const code = r.timedOut ? 'timeout' : String(r.code);
      exits[code] = (exits[code] ?? 0) + 1;
      if (code !== '0' && reasons.length < 5)
        reasons.push(`${command} #${i} (${mode}, exit ${code}): ${whyNotPass(r.stdout + r.stderr)}`);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  }
  const nonPass = n - (exits['0'] ?? 0);
  const busyAfter = machineBusySeconds();
  const elapsedS = (performance.now() - startedMs) / 1000;
  const busy =
    busyBefore === undefined || busyAfter === undefined || elapsedS <= 0
      ? {}
      : { busyCores: (busyAfter - busyBefore) / elapsedS };
  return { mode, command, n, nonPass, wall: summarize(walls), exits, reasons, ...busy };
}

/** The user's own target settings would test something else than the emulator. */
function withoutTarget(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('CES_')));
}

/** The CLI's failure lines (already redacted by it), shortened to one. */
function whyNotPass(output: string): string {
  const lines = output.split('\n').filter((l) => /^(✗|FAIL|NOT TESTED|.*not tested)/.test(l.trim()));
  return (lines.slice(0, 3).join(' | ') || output.trim().split('\n').at(-1) || '(no output)').slice(0, 400);
}

export function falseAlarmSection(rows: readonly FalseAlarmRow[]): Section {
  const total = rows.reduce((s, r) => s + r.nonPass, 0);
  return {
    title: '6. False alarms: check and run against the conformant emulator, idle and with the CPU saturated',
    headers: ['machine', 'command', 'n', 'non-pass', 'median', 'min', 'max', 'exit codes', 'cpu busy'],
    rows: rows.map((r) => [
      r.mode,
      r.command,
      String(r.n),
      String(r.nonPass),
      ms(r.wall.median),
      ms(r.wall.min),
      ms(r.wall.max),
      Object.entries(r.exits)
        .map(([c, k]) => `${c}×${k}`)
        .join(' '),
      r.busyCores === undefined ? '-' : `${r.busyCores.toFixed(2)} of ${availableParallelism()}`,
    ]),
    notes: [
      `Every non-pass against a conformant service is a false alarm; target 0. Total: ${total}.`,
      'Saturated: stress-ng --cpu <cores> runs for the whole mode, so the harness, the emulator and k6 share the CPU with it.',
      ...rows.flatMap((r) => r.reasons),
    ],
  };
}
