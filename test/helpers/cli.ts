// The CLI two ways: spawned from the built bin the way a user runs it (`npm test` builds dist/
// first), for what only a process shows (signals, exit timing, start-up, the bin itself); and
// `main` called inside the test's process, for everything else, at a fraction of the cost.
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import type { Clock } from '../../src/time/clock.js';
import { main } from '../../src/cli/main.js';
import { spawnBounded } from './bounded-child.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Another ces-harness.js to run (an installed package's), instead of this checkout's. */
  bin?: string;
  /**
   * In-process only: the clock the run reads and waits on, the built-in emulator's too (which then
   * runs in the test's thread). A virtual one makes a token's expiry pass in milliseconds.
   */
  clock?: Clock;
}

export interface RunningCli {
  child: ChildProcess;
  /** Resolves once stdout or stderr has printed a line matching `pattern`; rejects if the CLI ends first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** What it has printed so far (e.g. `serve`'s JSON lines while it keeps running). */
  stdout(): string;
  done: Promise<CliResult>;
}

const BIN = resolve('bin/ces-harness.js');

/**
 * The CLI as a running process, for tests that act on it mid-run (send it a signal, say). Past
 * `timeoutMs` it is killed with all it started (bounded-child.ts) and `done` rejects.
 */
export function startCli(args: string[], options: Omit<CliOptions, 'clock'> = {}): RunningCli {
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.pattern.test(run.stdout()) || w.pattern.test(run.stderr())) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const run = spawnBounded(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: cleanEnv(options.env),
    timeoutMs: options.timeoutMs ?? 60_000,
    onOutput: () => check(),
  });
  const { done } = run;
  // Handled here too: a test that never awaits `done` (it failed first) gets no stray rejection later.
  done.catch(() => {});
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolveWait, reject) => {
      waiters.push({ pattern, resolve: resolveWait });
      check();
      done.then(
        (r) => reject(new Error(`the CLI ended (exit ${r.code}) before printing ${pattern}:\n${r.stdout}${r.stderr}`)),
        reject,
      );
    });
  return { child: run.child, waitFor, stdout: run.stdout, done };
}

export function runCli(args: string[], options: Omit<CliOptions, 'clock'> = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** A clean environment: no developer's CES_* variables leak into a test. */
const cleanEnv = (env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  NO_COLOR: '1',
  ...env,
});

/**
 * An io of the test's own: streams that collect, the clean environment, a folder passed (never a
 * process.chdir: tests run at once in one worker), and stop signals that only the test sends.
 */
export function testIo(
  options: Omit<CliOptions, 'bin' | 'timeoutMs'> = {},
): CliIo & { output(): CliResult; signals: EventEmitter } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: cleanEnv(options.env),
    cwd: options.cwd ?? process.cwd(),
    signals: new EventEmitter(),
    exit: (code) => {
      throw new Error(`the CLI asked to exit at once with ${code}, which only a spawned CLI may do`);
    },
    output: () => ({ code: null, stdout, stderr }),
    ...(options.clock ? { clock: options.clock } : {}),
  };
}

/** How long a CLI stopped at its test's limit may take to write its partial report and end. */
const STOPPED_GRACE_MS = 30_000;

/**
 * `main(args)` in this process, with the same result as runCli. Only for what needs no process of
 * its own: no signal, no stdin, no exit timing, no installed bin, no environment read before main.
 * Past `timeoutMs` the run is sent SIGTERM, as CI stops a job, so that it stops its k6 and its
 * requests and removes its temp files rather than running on beside the tests after it; the call
 * rejects all the same, with what the run printed.
 */
export async function runCliInProcess(args: string[], options: Omit<CliOptions, 'bin'> = {}): Promise<CliResult> {
  const io = testIo(options);
  const limitMs = options.timeoutMs ?? 60_000;
  const run = main(args, io);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), limitMs)));
  try {
    const first = await Promise.race([run, late]);
    if (first !== 'late') return { ...io.output(), code: first };
  } finally {
    clearTimeout(timer);
  }
  // A run still loading has no handler yet: the signal then goes as the run installs one.
  if (io.signals.listenerCount('SIGTERM') > 0) io.signals.emit('SIGTERM');
  else
    io.signals.on('newListener', function sendOnce(name: string) {
      if (name !== 'SIGTERM') return;
      io.signals.off('newListener', sendOnce);
      setImmediate(() => io.signals.emit('SIGTERM'));
    });
  let grace: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    run.then(
      (code) => `it then ended with exit ${code}`,
      (err: unknown) => `it then failed: ${String(err)}`,
    ),
    new Promise<string>((resolve) => {
      grace = setTimeout(() => resolve(`it did not end within ${STOPPED_GRACE_MS} ms of SIGTERM`), STOPPED_GRACE_MS);
    }),
  ]).finally(() => clearTimeout(grace));
  const { stdout, stderr } = io.output();
  throw new Error(`the CLI did not return within ${limitMs} ms (stopped with SIGTERM: ${ended}):\n${stdout}${stderr}`);
}

/** The one line a refused input gets on stderr (`ces-harness: …`, no stack trace), asserted and returned. */
export function oneErrorLine(res: CliResult): string {
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^ces-harness: /);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}
