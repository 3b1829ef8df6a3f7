// Runs the client in a process group of its own and makes sure nothing of it outlives the run:
// on exit, on a stop (time limit, flood, a printed secret, Ctrl-C) and on the harness' own exit the
// whole group is killed, so a client's children and grandchildren go too.

import { spawn } from 'node:child_process';
import { atExit } from '../exit-cleanup.js';
import type { ProcessOutcome, StopReason } from './record.js';

/** Between SIGTERM and SIGKILL: time for a client to flush its output and close its sockets. */
const TERM_GRACE_MS = 1_000;

export interface Supervised {
  /** Resolves once the client has exited and its group is gone. */
  done: Promise<ProcessOutcome>;
  /** Ends the client (and its group) for this reason; the first reason given is the one reported. */
  stop(reason: StopReason): void;
}

export interface SuperviseOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  timeLimitMs: number;
  /** Every chunk the client writes, stdout and stderr alike. */
  onOutput(chunk: Buffer, stream: 'stdout' | 'stderr'): void;
}

const killGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
};

export function supervise(options: SuperviseOptions): Supervised {
  const startMs = Date.now();
  const child = spawn(options.argv[0]!, options.argv.slice(1), { env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  let stopped: StopReason | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const forget = pid === undefined ? () => undefined : atExit(() => killGroup(pid, 'SIGKILL'));

  const stop = (reason: StopReason) => {
    if (stopped !== null || pid === undefined) return;
    stopped = reason;
    killGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), TERM_GRACE_MS);
  };
  const limitTimer = setTimeout(() => stop('time-limit'), options.timeLimitMs);
  child.stdout.on('data', (chunk: Buffer) => options.onOutput(chunk, 'stdout'));
  child.stderr.on('data', (chunk: Buffer) => options.onOutput(chunk, 'stderr'));

  const done = new Promise<ProcessOutcome>((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(limitTimer);
      forget();
      reject(err);
    });
    // 'close', not 'exit': the output pipes are drained by then (or a grandchild holding them was killed).
    child.once('exit', () => {
      // The client is gone; whatever it left running in its group goes now, pipes included.
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
    });
    child.once('close', (code, signal) => {
      clearTimeout(limitTimer);
      clearTimeout(killTimer);
      if (pid !== undefined) killGroup(pid, 'SIGKILL');
      forget();
      resolve({ exitCode: code, signal: signal ?? null, stopped, durationMs: Date.now() - startMs });
    });
  });
  return { done, stop };
}
