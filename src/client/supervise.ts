// Runs the client under the shared supervisor (src/toolkit/supervise-child.ts): its own process
// group, killed whole on exit, on a stop (time limit, flood, a printed secret, Ctrl-C) and on the
// harness' own exit, and with it every process carrying the run's marker (a daemon that left the
// group with setsid).

import { randomUUID } from 'node:crypto';
import { superviseChild, type SupervisedChild } from '../toolkit/supervise-child.js';
import type { StopReason } from './record.js';
import { RUN_MARKER_VARIABLE, markedProcesses } from './run-marker.js';

/** Between SIGTERM and SIGKILL: time for a client to flush its output and close its sockets. */
const TERM_GRACE_MS = 1_000;

export type Supervised = SupervisedChild<StopReason>;

export interface SuperviseOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** The folder the client starts in. */
  cwd: string;
  timeLimitMs: number;
  /** Every chunk the client writes, stdout and stderr alike. */
  onOutput(chunk: Buffer, stream: 'stdout' | 'stderr'): void;
}

export function supervise(options: SuperviseOptions): Supervised {
  const marker = randomUUID();
  return superviseChild<StopReason>({
    ...options,
    env: { ...options.env, [RUN_MARKER_VARIABLE]: marker },
    termGraceMs: TERM_GRACE_MS,
    strays: () => markedProcesses(marker),
  });
}
