// Spawns the built CLI the way a user runs it (`npm test` builds dist/ first).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { expect } from 'vitest';

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

/** The CLI as a running process, for tests that act on it mid-run (send it a signal, say). */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? process.cwd(),
    // A clean environment: no developer's CES_* variables leak into a test.
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const w of [...waiters]) {
      if (w.pattern.test(stdout) || w.pattern.test(stderr)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout!.on('data', (d: Buffer) => ((stdout += d.toString()), check()));
  child.stderr!.on('data', (d: Buffer) => ((stderr += d.toString()), check()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const done = new Promise<CliResult>((resolveDone, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveDone({ code, stdout, stderr });
    });
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolveWait, reject) => {
      waiters.push({ pattern, resolve: resolveWait });
      check();
      void done.then((r) =>
        reject(new Error(`the CLI ended (exit ${r.code}) before printing ${pattern}:\n${r.stdout}${r.stderr}`)),
      );
    });
  return { child, waitFor, stdout: () => stdout, done };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** The one line a refused input gets on stderr (`ces-harness: …`, no stack trace), asserted and returned. */
export function oneErrorLine(res: CliResult): string {
  const lines = res.stderr.trim().split('\n');
  expect(lines, res.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^ces-harness: /);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}
