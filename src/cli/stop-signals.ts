// SIGINT (Ctrl-C), SIGTERM (CI cancelling a job, `docker stop`, `kill`) and SIGHUP (the terminal
// went away) all stop a run the same way. The first aborts the run: what is in flight finishes,
// the partial report is written (it lists the run as interrupted) and the exit code is 1. A second
// one quits at once with 128 + the signal's number, the shell convention (130, 143, 129); the
// exit-time cleanup (src/exit-cleanup.ts) still removes the temp files and stops k6.

import { constants } from 'node:os';
import type { CliIo } from './io.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Installs the handlers on the run's signal source; returns the function that removes them. */
export function handleStopSignals(
  controller: AbortController,
  say: (line: string) => void,
  io: Pick<CliIo, 'signals' | 'exit'>,
): () => void {
  const handlers = STOP_SIGNALS.map((name) => {
    const handler = () => {
      if (controller.signal.aborted) return io.exit(128 + constants.signals[name]);
      const again = name === 'SIGINT' ? 'Ctrl-C again' : `${name} again`;
      say(`interrupted (${name}): finishing what is in flight and writing a partial report (${again} to quit now)`);
      controller.abort(new Error(`interrupted by ${name}`));
    };
    io.signals.on(name, handler);
    return () => io.signals.off(name, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}
