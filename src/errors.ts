// One catalog of the errors a user can cause. Each has a stable code (tests assert the code, not
// the sentence) and maps to the exit code of the contract: 2 usage/config, 3 target unreachable.
// The CLI prints `ces-harness: <message>` and nothing else for these: no stack trace.

export const ERROR_CODES = {
  USAGE: 2,
  CONFIG_NOT_FOUND: 2,
  CONFIG_INVALID: 2,
  UNKNOWN_ENVIRONMENT: 2,
  MISSING_CREDENTIAL: 2,
  PRODUCTION_REFUSED: 2,
  K6_NOT_FOUND: 2,
  /** A file the user named is not a regular file, or far too large to be the right one. */
  FILE_UNUSABLE: 2,
  /** A folder the run must write (report, ledger, TLS, manifests) cannot be created or written. */
  OUTPUT_UNWRITABLE: 2,
  PORT_IN_USE: 2,
  /** `ces-harness client`: the command to run is not on PATH or not executable. */
  CLIENT_COMMAND_UNUSABLE: 2,
  TARGET_UNREACHABLE: 3,
  CERT_UNTRUSTED: 3,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  readonly exitCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.exitCode = ERROR_CODES[code];
  }
}

export const usageError = (message: string) => new HarnessError('USAGE', message);

/**
 * The errors a stage must not turn into "not tested": usage and config errors, and a refused
 * production probe, are the user's to fix before anything runs (exit 2, no report). Any other
 * error a stage throws leaves the run's report with that stage not tested (exit 1).
 */
const STOPS_THE_RUN: ReadonlySet<ErrorCode> = new Set(['USAGE', 'PRODUCTION_REFUSED', 'CONFIG_INVALID']);

export const stopsTheRun = (err: unknown): err is HarnessError =>
  err instanceof HarnessError && STOPS_THE_RUN.has(err.code);
