// A process a test starts (the built CLI, an action's bash step), bounded: past its time limit the
// process, its process group and everything it started (the CLI's k6 and clients sit in groups of
// their own, so a group kill alone misses them) are SIGKILLed, and only then does the wait fail,
// naming the limit and what was printed. A hung run then never outlives its test, holding the CPU
// and ports of the tests after it. A process that ends by itself is left as it left things: tests
// that assert the CLI cleaned up after itself must see what it left.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { markedProcesses } from '../../src/client/run-marker.js';
import { atExit } from '../../src/exit-cleanup.js';

/**
 * In the environment of every bounded process, a new value each: what it started inherits it (k6
 * and clients too: they drop CES_* variables, not this), and what clears it is still found by its
 * parent links while the bounded process lives.
 */
export const BOUNDED_CHILD_MARKER = 'HARNESS_TEST_RUN';

/** After the kill, how long pipes held by something not found may keep the wait from ending. */
const PIPE_GRACE_MS = 2_000;

export interface BoundedOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs: number;
  /** Every chunk as it arrives (the accumulated text is in `stdout()`/`stderr()` already). */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
}

export interface BoundedChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The exit code once the output pipes closed; rejects past the time limit, once all of it is dead. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

export function spawnBounded(file: string, args: readonly string[], options: BoundedOptions): BoundedChild {
  const marker = randomUUID();
  const child = spawn(file, args, {
    cwd: options.cwd ?? process.cwd(),
    env: { ...options.env, [BOUNDED_CHILD_MARKER]: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, so one signal reaches whatever it started without leaving it.
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const)
    child[stream].on('data', (d: Buffer) => {
      const text = d.toString();
      output[stream] += text;
      options.onOutput?.(text, stream);
    });
  const killAll = () => {
    // Found first: once the process dies, the parent links to what dropped the marker are gone.
    const started = markedProcesses(marker, '/proc', BOUNDED_CHILD_MARKER);
    for (const pid of [-(child.pid ?? 0), ...started]) {
      try {
        if (pid !== 0) process.kill(pid, 'SIGKILL');
      } catch {
        // ESRCH: already gone.
      }
    }
  };
  const forget = child.pid === undefined ? () => {} : atExit(killAll);
  let timedOut = false;
  let pipeTimer: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    killAll();
    pipeTimer = setTimeout(() => (child.stdout.destroy(), child.stderr.destroy()), PIPE_GRACE_MS);
  }, options.timeoutMs);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const settle = () => (clearTimeout(timer), clearTimeout(pipeTimer), forget());
    child.once('error', (err) => (settle(), reject(err)));
    child.once('close', (code) => {
      settle();
      if (!timedOut) return resolve({ code, ...output });
      const command = [file, ...args].join(' ').slice(0, 200);
      reject(
        new Error(
          `${command} did not end within ${options.timeoutMs} ms; it and all it started were killed. Its output:\n${output.stdout}${output.stderr}`,
        ),
      );
    });
  });
  return { child, stdout: () => output.stdout, stderr: () => output.stderr, done };
}
