// A CPU kept busy by another process, as on a shared CI runner: Debian's stress-ng with one
// worker per core. Used by the false-alarm bench and by the test that runs `check` under load.
// Bounded twice: stress-ng's own --timeout, and stop(), which ends its process group.

import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

export const STRESS_NG = '/usr/bin/stress-ng';

export interface Saturation {
  workers: number;
  stop(): Promise<void>;
}

/** Starts `stress-ng --cpu N` (N = cores by default) for at most `maxS` seconds. */
export function saturateCpu(opts: { maxS: number; workers?: number }): Promise<Saturation> {
  const workers = opts.workers ?? availableParallelism();
  // Its own process group, so that stop() reaches the workers it forks, and nothing else.
  const child = spawn(STRESS_NG, ['--cpu', String(workers), '--timeout', `${Math.ceil(opts.maxS)}s`, '--quiet'], {
    stdio: 'ignore',
    detached: true,
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const signalGroup = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        // already gone
      }
    };
    signalGroup('SIGTERM');
    const escalate = setTimeout(() => signalGroup('SIGKILL'), 5_000);
    await closed;
    clearTimeout(escalate);
  };
  return new Promise((resolve, reject) => {
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === 'ENOENT'
            ? `${STRESS_NG} is not installed; apt-get install stress-ng (.ci/run does)`
            : `stress-ng did not start: ${err.message}`,
        ),
      ),
    );
    child.once('spawn', () => resolve({ workers, stop }));
  });
}
