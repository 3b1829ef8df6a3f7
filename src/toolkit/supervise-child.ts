// Runs a child in a process group of its own and makes sure nothing of it outlives the run: on a
// stop (time limit, the caller's reasons) SIGTERM to the whole group, SIGKILL after a grace; on the
// child's exit and on the harness' own exit the group is SIGKILLed, so its children and
// grandchildren go too, and so do the strays the caller names (a daemon that left the group with
// setsid). Once the main process has exited, its output pipes get a short grace and are then cut: a
// process holding them that was not found must not keep the run waiting. Used by the k6 runner
// (src/k6/run.ts), the client runner (src/client/supervise.ts) and the bench's tools (bench/proc.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { atExit } from '../exit-cleanup.js';

/** After the main process exited and the rest was killed: time for its last output to drain. */
const PIPE_GRACE_MS = 500;

export interface ChildOutcome<Reason extends string> {
  /** null when the child was ended by a signal. */
  exitCode: number | null;
  signal: string | null;
  /** Set when the harness ended the child rather than the child itself: the first reason given. */
  stopped: Reason | 'time-limit' | null;
  /** When the harness stopped it (ms since start), null when it ended by itself. */
  stoppedMs: number | null;
  durationMs: number;
}

export interface SupervisedChild<Reason extends string> {
  /** The child's process id; undefined when it could not start. */
  pid: number | undefined;
  /** Resolves once the child has exited and its group is gone; rejects when it could not start. */
  done: Promise<ChildOutcome<Reason>>;
  /** Ends the child (and its group) for this reason; the first reason given is the one reported. */
  stop(reason: Reason | 'time-limit'): void;
}

export interface SuperviseChildOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Past this the child is stopped with reason 'time-limit'. */
  timeLimitMs: number;
  /** Between SIGTERM and SIGKILL: time for the child to flush its output (k6: write its summary). */
  termGraceMs: number;
  /** Every chunk the child writes, stdout and stderr alike. */
  onOutput(chunk: Buffer, stream: 'stdout' | 'stderr'): void;
  /** Processes outside the group to signal with it, found just before each signal. */
  strays?: () => readonly number[];
}

/** Signals the group (a negative pid); where there are no groups (Windows), the child alone. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: already gone; elsewhere, no process groups.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

const signalPid = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
};

export function superviseChild<Reason extends string>(options: SuperviseChildOptions): SupervisedChild<Reason> {
  const startMs = Date.now();
  const child = spawn(options.argv[0]!, options.argv.slice(1), {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });
  const killAll = (signal: NodeJS.Signals) => {
    // Found before the group is signalled: once the child dies, the parent links through it are gone.
    const strays = options.strays?.() ?? [];
    signalGroup(child, signal);
    for (const pid of strays) signalPid(pid, signal);
  };
  let exited = false;
  let stopped: Reason | 'time-limit' | null = null;
  let stoppedMs: number | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  let pipeTimer: NodeJS.Timeout | undefined;
  const forget = child.pid === undefined ? () => undefined : atExit(() => killAll('SIGKILL'));

  const stop = (reason: Reason | 'time-limit') => {
    if (stopped !== null || exited || child.pid === undefined) return;
    stopped = reason;
    stoppedMs = Date.now() - startMs;
    killAll('SIGTERM');
    killTimer = setTimeout(() => killAll('SIGKILL'), options.termGraceMs);
  };
  const limitTimer = setTimeout(() => stop('time-limit'), options.timeLimitMs);
  child.stdout.on('data', (chunk: Buffer) => options.onOutput(chunk, 'stdout'));
  child.stderr.on('data', (chunk: Buffer) => options.onOutput(chunk, 'stderr'));

  const done = new Promise<ChildOutcome<Reason>>((resolve, reject) => {
    child.once('error', (err) => {
      clearTimeout(limitTimer);
      forget();
      reject(err);
    });
    child.once('exit', () => {
      exited = true;
      clearTimeout(killTimer);
      // The child is gone; whatever it left running goes now, and with it (as a rule) the pipes.
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
  return { pid: child.pid, done, stop };
}

/** Keeps the last `maxBytes` of a stream: the tail a report shows of a child's output. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly maxBytes: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.maxBytes) this.size -= this.chunks.shift()?.length ?? 0;
  }
  text(): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.maxBytes)).toString('utf8');
  }
}
