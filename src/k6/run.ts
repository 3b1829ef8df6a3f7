// Running one bundled scenario with k6: a child process with a scrubbed environment, bounded in
// time, whose result is the exit code, the summary handleSummary wrote, and the tail of its output.

import { mkdir, readFile, rm } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { dirname } from 'node:path';
import { Redactor } from '../http/redact.js';
import { SCENARIO_ENV } from './contract.js';
import { goRuntimeEnv, scrubbedEnv, usableMemory } from './k6-env.js';
import { OutputTail, superviseChild } from '../toolkit/supervise-child.js';
import { trustBundle } from './trust-bundle.js';
import { watchResident } from './memory-watch.js';

/** k6's exit codes the harness distinguishes (k6 errext/exitcodes). */
export const K6_EXIT = {
  OK: 0,
  THRESHOLDS_FAILED: 99,
  SETUP_TIMEOUT: 100,
  TEARDOWN_TIMEOUT: 101,
  GENERIC_TIMEOUT: 102,
  ENGINE_ERROR: 103,
  INVALID_CONFIG: 104,
  EXTERNAL_ABORT: 105,
  CANNOT_START_API: 106,
  SCRIPT_EXCEPTION: 107,
  SCRIPT_ABORTED: 108,
  GO_PANIC: 109,
  MARKED_FAILED: 110,
} as const;

export interface RunScenarioOptions {
  k6Path: string;
  /** The bundled scenario, e.g. dist/scenarios/tls.js. */
  bundle: string;
  /** The scenario's inputs (CES_*), on top of the scrubbed parent environment. */
  env: Record<string, string>;
  /** Passed as CES_SUMMARY_FILE; read back after k6 exits. */
  summaryFile: string;
  /**
   * An extra CA (PEM file) for k6 to trust besides the system roots. k6 has no CA option for
   * HTTP; on Linux Go reads SSL_CERT_FILE, so this builds a bundle of the system roots and this CA.
   */
  caFile?: string;
  extraArgs?: string[];
  /** SIGTERM after this long (k6 then still writes its summary), SIGKILL 10 s later. Default 10 min. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The environment to start from; default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
  /** The run's redactor, so k6's output tails show tokens as the reports do; default: one knowing the secret. */
  redactor?: Redactor;
  /**
   * k6 is stopped once its resident memory passes this, shared among the k6 processes running at
   * once (memory-watch.ts); default half the machine's memory.
   */
  memoryCapBytes?: number;
}

export interface RunScenarioResult {
  /** null when k6 was killed by a signal. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Set when k6 was stopped for passing its memory cap: the cap, bytes. */
  memoryCappedAt?: number;
  /** What handleSummary wrote to summaryFile (k6's summary data plus `ces`), if anything. */
  summary: unknown;
  stdoutTail: string;
  stderrTail: string;
  durationMs: number;
}

const TAIL_BYTES = 8 * 1024;
const KILL_GRACE_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** The least each k6 may hold under the default cap, however many run at once (watchResident's share). */
const SHARE_FLOOR_BYTES = 1024 * 2 ** 20;

/** The machine's memory, or its container's limit when lower (Go does not read the cgroup's itself). */
const memoryOfThisMachine = (): number => usableMemory(totalmem(), process.constrainedMemory?.());

export async function runScenario(opts: RunScenarioOptions): Promise<RunScenarioResult> {
  const base = opts.baseEnv ?? process.env;
  const trust = opts.caFile === undefined ? undefined : await trustBundle(opts.caFile, base);
  const env: Record<string, string> = {
    ...scrubbedEnv(base),
    ...goRuntimeEnv(base, memoryOfThisMachine()),
    ...opts.env,
    ...(trust ? { SSL_CERT_FILE: trust.file } : {}),
    [SCENARIO_ENV.summaryFile]: opts.summaryFile,
  };
  // A stale summary from an earlier run must never pass for this one's; k6 does not create folders.
  await rm(opts.summaryFile, { force: true });
  await mkdir(dirname(opts.summaryFile), { recursive: true });

  // --quiet: no progress bars in captured output. --no-usage-report: no call home from a harness
  // run (and none is reachable on locked-down runners). The REST API (port 6565 in k6 < v1) is off
  // in k6 v2 unless --address is given, so parallel runs cannot clash on a port.
  const args = ['run', '--quiet', '--no-usage-report', '--no-color', ...(opts.extraArgs ?? []), opts.bundle];
  const stdout = new OutputTail(TAIL_BYTES);
  const stderr = new OutputTail(TAIL_BYTES);

  try {
    // A process group of its own, killed whole at the harness' exit: a harness that quits at once
    // must not leave k6 loading the target on its own. SIGTERM lets k6 stop the VUs and still run
    // handleSummary; SIGKILL if it does not finish.
    const k6 = superviseChild<'interrupted' | 'memory'>({
      argv: [opts.k6Path, ...args],
      env,
      timeLimitMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      termGraceMs: KILL_GRACE_MS,
      onOutput: (chunk, stream) => (stream === 'stdout' ? stdout : stderr).push(chunk),
    });
    const memoryCap = opts.memoryCapBytes ?? memoryOfThisMachine() / 2;
    let cappedAt: number | undefined;
    const unwatch = watchResident(
      k6.pid,
      memoryCap,
      (share) => {
        cappedAt = share;
        k6.stop('memory');
      },
      // On a small machine, five k6 side by side (`run` on the built-in emulator) would each get a
      // few hundred MiB, near what a conformant run's k6 holds (up to 528 MiB measured): a cap
      // meant for a body without end must never stop a conformant run.
      opts.memoryCapBytes === undefined ? Math.min(memoryCap, SHARE_FLOOR_BYTES) : 0,
    );
    const onAbort = () => k6.stop('interrupted');
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const outcome = await k6.done.finally(() => {
      unwatch();
      opts.signal?.removeEventListener('abort', onAbort);
    });

    let summary: unknown;
    try {
      summary = JSON.parse(await readFile(opts.summaryFile, 'utf8'));
    } catch {
      summary = undefined;
    }
    const redactor = opts.redactor ?? new Redactor();
    redactor.addSecret(opts.env[SCENARIO_ENV.clientSecret], opts.env[SCENARIO_ENV.clientId]);
    return {
      exitCode: outcome.exitCode,
      timedOut: outcome.stopped === 'time-limit',
      aborted: outcome.stopped === 'interrupted',
      ...(outcome.stopped === 'memory' && cappedAt !== undefined && { memoryCappedAt: cappedAt }),
      summary,
      stdoutTail: redactor.foreign(stdout.text()),
      stderrTail: redactor.foreign(stderr.text()),
      durationMs: outcome.durationMs,
    };
  } finally {
    await trust?.dispose();
  }
}
