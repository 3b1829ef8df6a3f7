// Runs the client in a process group of its own and makes sure nothing of it outlives the run:
// on exit, on a stop (time limit, flood, a printed secret, Ctrl-C) and on the harness' own exit the
// whole group is killed, so a client's children and grandchildren go too, and so does every process
// carrying the run's marker (a daemon that left the group with setsid). Once the client's main
// process has exited, its output pipes get a short grace and are then cut: a process holding them
// that the marker could not find must not keep the run waiting.

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { atExit } from '../exit-cleanup.js';
import type { ProcessOutcome, StopReason } from './record.js';
import { RUN_MARKER_VARIABLE, markedProcesses } from './run-marker.js';

/** Between SIGTERM and SIGKILL: time for a client to flush its output and close its sockets. */
const TERM_GRACE_MS = 1_000;
/** After the main process exited and the rest was killed: time for its last output to drain. */
const PIPE_GRACE_MS = 500;

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

/** A negative pid is a process group. */
const send = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
};

export function supervise(options: SuperviseOptions): Supervised {
  const startMs = Date.now();
  const marker = randomUUID();
  const child = spawn(options.argv[0]!, options.argv.slice(1), {
    env: { ...options.env, [RUN_MARKER_VARIABLE]: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  const killAll = (signal: NodeJS.Signals) => {
    // Found before the group is signalled: once the client dies, the parent links through it are gone.
    const marked = markedProcesses(marker);
    if (pid !== undefined) send(-pid, signal);
    for (const other of marked) send(other, signal);
  };
  let stopped: StopReason | null = null;
  let stoppedMs: number | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  let pipeTimer: NodeJS.Timeout | undefined;
  const forget = pid === undefined ? () => undefined : atExit(() => killAll('SIGKILL'));

  const stop = (reason: StopReason) => {
    if (stopped !== null || pid === undefined) return;
    stopped = reason;
    stoppedMs = Date.now() - startMs;
    killAll('SIGTERM');
    killTimer = setTimeout(() => killAll('SIGKILL'), TERM_GRACE_MS);
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
    child.once('exit', () => {
      // The client is gone; whatever it left running goes now, and with it (as a rule) the pipes.
      killAll('SIGKILL');
      // Destroyed pipes close, and 'close' follows: what was not read by then is lost, the run is not.
      pipeTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, PIPE_GRACE_MS);
    });
    // 'close', not 'exit': the output pipes are drained by then (or cut after the grace).
    child.once('close', (code, signal) => {
      clearTimeout(limitTimer);
      clearTimeout(killTimer);
      clearTimeout(pipeTimer);
      killAll('SIGKILL');
      forget();
      resolve({ exitCode: code, signal: signal ?? null, stopped, stoppedMs, durationMs: Date.now() - startMs });
    });
  });
  return { done, stop };
}
