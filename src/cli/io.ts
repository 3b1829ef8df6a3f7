// What a CLI run reads from and writes to its process: the two output streams, the environment,
// the working folder, the stop signals and the way out. The bin passes the real process; a test
// passes its own, so that `main` runs inside the test's process with nothing shared between two
// runs at once (no process.chdir, no env written, no handler left on the process).

import type { Clock } from '../time/clock.js';

/** An output stream: what it is written to, and whether it is a terminal (colour, progress line). */
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Where the stop signals come from: `process` itself for the bin. */
export interface StopSignalSource {
  on(signal: NodeJS.Signals, listener: () => void): unknown;
  off(signal: NodeJS.Signals, listener: () => void): unknown;
}

export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
  /** The folder relative paths (--config, --report-dir, --out-dir) start from. */
  cwd: string;
  signals: StopSignalSource;
  /** Ends the program at once (a second stop signal): process.exit for the bin. */
  exit(code: number): void;
  /**
   * The clock the run reads and waits on, and the built-in emulator with it (which then runs in
   * this thread: a test's virtual clock cannot cross into a worker). The system clock when absent,
   * as for the bin.
   */
  clock?: Clock;
}

/** The real process, as the bin runs. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
    exit: (code) => process.exit(code),
  };
}
