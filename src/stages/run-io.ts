// What every stage of a target job (checks, load, rate-limit sizing) is given, and nothing else:
// the target with its fully resolved settings, and one run-IO object for the clock, the stop
// signal, the lines it says and the redactor. The CLI builds both once (src/cli/commands/target-job.ts);
// a test builds them from a capture, so a stage never reaches for process streams or the wall clock.

import type { Credentials } from '../spec/credentials.js';
import type { TargetSettings } from '../config/resolve.js';
import type { Target } from '../config/target.js';
import type { ProductionGate } from '../http/production-gate.js';
import type { Redactor } from '../http/redact.js';
import type { TransportFacts, Untested } from '../report/model.js';
import type { Ledger } from '../runner/ledger.js';
import { systemClock, type Clock } from '../time/clock.js';
import type { Advertisement } from '../spec/ratelimit-fields.js';

/** Part of a line: plain text, or text in an SGR colour (31 red, 2 dim…) when colour is on. */
export type Span = string | { text: string; sgr: number };
/** A line of text, or of spans some of which are coloured. */
export type Line = string | readonly Span[];

/** Where a stage's lines go: the terminal (src/cli/terminal.ts), or a test's capture. */
export interface StageLines {
  out(line: Line): void;
  err(line: Line): void;
  /** A line while waiting; the terminal overwrites it with the next. */
  progress(line: string): void;
}

export interface RunIo extends StageLines {
  /** What the stage reads and waits on (src/time/clock.ts): the system clock, or a test's virtual one. */
  clock: Clock;
  /** The run's stop signal (first Ctrl-C, SIGTERM, SIGHUP): a stage finishes what is in flight and returns. */
  signal: AbortSignal;
  /** Every secret of the run: what a stage writes or says passes through it. */
  redactor: Redactor;
  /**
   * A stage that could not test what it was asked to says so here (one line why); the run then
   * cannot pass, and the reason reaches the terminal and every report format.
   */
  untested(stage: Untested['stage'], reason: string): void;
  /** How the checks' requests travelled (HTTP version, content codings), for the report's target section. */
  sawTransport?(facts: TransportFacts): void;
  /** The tightest rate limit the target's answers announced during the checks (cutover reads it). */
  sawAdvertisedLimit?(advertised: Advertisement): void;
  /**
   * Beside another stage (`run`'s checks beside its load): resolves once the other stage's traffic
   * is over. The checks wait for it before the phase that paces requests past the limit and judges
   * what comes back: k6, and the emulator instances it loads in this process, would take the CPU
   * that pace needs. Absent when the stage runs alone.
   */
  untilAlone?(): Promise<void>;
  /**
   * Beside another stage: called once this stage's traffic is over and before work that holds the
   * event loop for seconds (redacting k6's artefacts); resolves once the other stage has ended, so
   * none of its timed requests waits behind that work. Absent when the stage runs alone.
   */
  beforeBlocking?(): Promise<void>;
}

/** Where load and rate-limit sizing send: the target, or the built-in emulator's long-lived instance. */
export interface SizingTarget {
  target: Target;
  /** The built-in emulator's second client, for the probe's scope phase. */
  secondClient?: Credentials;
  /**
   * Send times (epoch ms) of requests the job sent there before any stage (the preflight's): a
   * limit per client counted them, and the probe counts them among its set-up requests when they
   * went just before it (src/ratelimit/calls.ts).
   */
  sentBefore?: readonly number[];
}

/** The target a stage works on: settings resolved once, before any stage runs. */
export interface StageTarget {
  settings: TargetSettings;
  /**
   * Where load and rate-limit sizing go (`settings.sizing` says which and what they expect). For
   * the built-in emulator that is a second instance, started on first use.
   */
  probeTarget(): Promise<SizingTarget>;
  /**
   * For the built-in emulator only: a fresh instance of it on each call (same faults and profiles,
   * 24-hour tokens), its limiter and token store its own, closed with the run. Traffic sent there
   * spends no other stage's rate-limit budget, so what goes there may run beside the other stages.
   * Absent for a real service, where every stage shares the one target and its limit.
   */
  isolatedTarget?(): Promise<SizingTarget>;
  ledger: Ledger;
  /** The report folder: k6 writes its summaries and exports under it. */
  reportDir: string;
  /** The run's one production gate: every stage's requests to production count against one budget (a stage's own when absent). */
  productionGate?: ProductionGate;
}

/**
 * A stage, and what it refuses on the settings alone (production without the opt-in): the job asks
 * that before its first request, so a command that would be refused sends nothing at all.
 */
export type Stage<T> = ((target: StageTarget, io: RunIo) => Promise<T>) & {
  refusesBeforeRequests?: (settings: TargetSettings) => void;
};

/** A run's IO: its lines, redactor and stop signal, on the system clock unless a test gives another. */
export function runIo(
  lines: StageLines,
  redactor: Redactor,
  signal: AbortSignal,
  untested: RunIo['untested'],
  clock: Clock = systemClock,
): RunIo {
  const { out, err, progress } = lines;
  return { clock, signal, redactor, out, err, progress, untested };
}
