// The commands that talk to a target (run, check, load, ratelimit) share one shape: prepare the
// target, run their stages, fold everything into one report, write the folder, print a summary.
// The exit code is the report's verdict (exitCodeOf): every reason for a 1 is in the report.

import { setMaxListeners } from 'node:events';
import { Redactor } from '../../http/redact.js';
import { harnessWords } from '../harness-words.js';
import type { ProductionGate } from '../../http/production-gate.js';
import { runIo, type RunIo, type Stage, type StageTarget } from '../../stages/run-io.js';
import { productionGateFor } from '../../runner/context.js';
import { auditPreflight } from '../../runner/preflight.js';
import { isProduction } from '../../config/target.js';
import { buildReport } from '../../report/build.js';
import {
  exitCodeOf,
  type CheckResult,
  type LoadResult,
  type RateLimitResult,
  type Report,
  type TransportFacts,
  type Untested,
} from '../../report/model.js';
import { stopsTheRun } from '../../errors.js';
import { removeEmptyDirs } from '../../fs/writable.js';
import { historyStep } from '../../history/step.js';
import { VERSION } from '../../version.js';
import type { Options } from '../flags.js';
import type { CliIo } from '../io.js';
import { prepareTarget, type PreparedTarget, type TargetFlags } from '../prepare-target.js';
import { prepareReportPlace, writeReportFolder, type ReportPlace } from '../report-folder.js';
import { handleStopSignals } from '../stop-signals.js';
import { createTerminal, summaryLines, type Terminal } from '../terminal.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';

export interface Stages {
  checks?: Stage<CheckResult[]>;
  load?: Stage<{ result: LoadResult; files?: Record<string, string> }>;
  rateLimit?: Stage<RateLimitResult>;
  /**
   * For `run`: against production without --allow-production-load, leave out the load and
   * rate-limit stages with a note instead of refusing the whole job (the checks are still wanted).
   */
  probingOptional?: boolean;
}

export async function targetJob(options: Options, stages: Stages, io: CliIo): Promise<number> {
  const redactor = new Redactor({ keep: harnessWords() });
  const terminal = createTerminal(redactor, io, { noColor: options['no-color'] === true });
  // First Ctrl-C (or SIGTERM, SIGHUP) stops the run and still writes a partial report; a second one exits at once.
  const controller = new AbortController();
  // Every concurrent request and handshake listens to this one signal; dozens is expected, not a leak.
  setMaxListeners(0, controller.signal);
  // Installed before the target is prepared (an emulator start or a slow preflight is stoppable
  // too), and removed on every way out by the finally that follows it at once.
  const removeStopHandlers = handleStopSignals(controller, terminal.err, io);
  try {
    const job = await prepareJob(options['report-dir'], options, redactor, terminal, io, (settings) => {
      // A command that is only load or probing is refused on production before anything is sent;
      // `run` leaves those stages out instead (probingOptional), and keeps its checks.
      if (stages.probingOptional) return;
      for (const stage of [stages.load, stages.rateLimit]) stage?.refusesBeforeRequests?.(settings);
    });
    try {
      return await runStages(job, stages, redactor, terminal, controller.signal);
    } finally {
      await job.prepared.close();
      // Only what is still empty: a folder holding the report or the ledger stays.
      removeEmptyDirs(job.place.created);
    }
  } finally {
    removeStopHandlers();
  }
}

interface Job {
  prepared: PreparedTarget;
  place: ReportPlace;
  reportDir: string;
  startedAt: Date;
}

/** The stages in order, then one report from whatever they returned; the exit code of the run. */
async function runStages(
  { prepared, reportDir, startedAt }: Job,
  stages: Stages,
  redactor: Redactor,
  terminal: Terminal,
  signal: AbortSignal,
): Promise<number> {
  const { settings } = prepared;
  const untested: Untested[] = [];
  const productionGate = productionGateFor(settings.production);
  auditPreflight(productionGate, settings.target, prepared.preflight);
  let transport: TransportFacts | undefined;
  const on: StageTarget = { ...prepared, reportDir, productionGate };
  const io: RunIo = {
    ...runIo(terminal, redactor, signal, (stage, reason) => {
      untested.push({ stage, reason });
      terminal.err(`${stage}: not tested: ${reason}`);
    }),
    sawTransport: (facts) => void (transport = facts),
  };
  // A stage that throws still leaves a report: the other stages' results and why this one is missing.
  const guarded = async <T>(stage: Stage<T>, name: Untested['stage']): Promise<T | undefined> => {
    try {
      return await stage(on, io);
    } catch (err) {
      if (stopsTheRun(err)) throw err;
      io.untested(name, err instanceof Error ? err.message : String(err));
      return undefined;
    }
  };
  const optional = async <T>(
    stage: Stage<T> | undefined,
    name: Untested['stage'],
    what: string,
  ): Promise<T | undefined> => {
    if (!stage) return undefined;
    if (signal.aborted) {
      io.untested(
        name,
        `${what} not run: ${String(signal.reason instanceof Error ? signal.reason.message : 'interrupted')}`,
      );
      return undefined;
    }
    if (stages.probingOptional && !settings.rateLimit.probingAllowed) {
      terminal.err(
        `${what} left out: ${settings.target.environment} is production (pass --allow-production-load to include it)`,
      );
      return undefined;
    }
    return guarded(stage, name);
  };
  // How long each stage took, said at the end: where a run's time goes is the user's to see.
  const took: Array<[string, number]> = [];
  const timed = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      took.push([name, performance.now() - started]);
    }
  };
  const checks = (stages.checks ? await timed('checks', () => guarded(stages.checks!, 'checks')) : []) ?? [];
  const load = stages.load ? await timed('load', () => optional(stages.load, 'load', 'load run')) : undefined;
  const rateLimit =
    (stages.rateLimit
      ? await timed('rate-limit sizing', () => optional(stages.rateLimit, 'rate_limit', 'rate-limit sizing'))
      : undefined) ?? null;
  // Read once: a stop that comes while the report is written finds every stage already done.
  const interrupted = signal.aborted;
  if (interrupted) io.untested('run', 'interrupted before it finished: this report is partial');
  // Requests held back by the budget were never sent: a run that could not send them tested less than asked.
  if (productionGate.budgetReached)
    io.untested(
      'production',
      `the production request budget (production.max_requests ${productionGate.maxRequests}) was reached; what remained was not tested`,
    );
  const report = buildReport({
    version: VERSION,
    target: {
      environment: settings.target.environment,
      base_url: settings.target.baseUrl,
      ...(settings.target.emulated ? { emulated: true } : {}),
      ...(transport ? { transport } : {}),
    },
    startedAt,
    finishedAt: new Date(),
    checks,
    load: load?.result ?? null,
    rateLimit,
    untested,
    notes: settings.warnings,
    ...(touchesProduction(settings) ? { production: productionAudit(productionGate) } : {}),
  });
  // Redacted before the history keeps it, as the report folder is: a secret in the base URL's
  // query, say, must not reach history.jsonl either.
  const remembered = historyStep(redactor.deep(report), prepared.history, settings.regressions, terminal, interrupted);
  writeReportFolder(reportDir, remembered.report, redactor, { ...(load?.files ?? {}), ...remembered.files });
  for (const line of summaryLines(remembered.report, reportDir)) terminal.out(line);
  if (took.length > 1) terminal.out(stageTimes(took));
  return exitCodeOf(remembered.report);
}

/**
 * The target, and every place the run writes (report folder, ledger), checked before the first
 * request rather than found unusable after the last. On failure nothing it made stays behind.
 */
async function prepareJob(
  reportDirFlag: string | undefined,
  flags: TargetFlags,
  redactor: Redactor,
  terminal: Terminal,
  io: Pick<CliIo, 'env' | 'cwd'>,
  refusesBeforeRequests: (settings: PreparedTarget['settings']) => void,
): Promise<Job> {
  const place = prepareReportPlace(reportDirFlag, io.cwd);
  let prepared: PreparedTarget | undefined;
  try {
    // The dated folder is claimed before the preflight's request: a name too long (a long
    // environment name) is exit 2 before anything is sent.
    let claimed: { reportDir: string; startedAt: Date } | undefined;
    prepared = await prepareTarget(flags, redactor, terminal, io, (settings) => {
      refusesBeforeRequests(settings);
      const startedAt = new Date();
      claimed = { reportDir: place.claim(settings.target.environment, startedAt), startedAt };
    });
    return { prepared, place, ...claimed! };
  } catch (err) {
    await prepared?.close();
    removeEmptyDirs(place.created);
    throw err;
  }
}

/** `time: checks 9.1 s, load 24.3 s, rate-limit sizing 12.0 s`: each stage's wall time, in order. */
export function stageTimes(took: ReadonlyArray<[string, number]>): string {
  return `time: ${took.map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(', ')}`;
}

/** A run whose target or one of whose other environments is production lists what it sent there. */
const touchesProduction = (settings: PreparedTarget['settings']) =>
  [settings.target, ...settings.others].some(isProduction);

export function productionAudit(gate: ProductionGate): NonNullable<Report['production']> {
  return {
    max_requests: gate.maxRequests,
    sent: gate.requests.length,
    budget_reached: gate.budgetReached,
    ...(gate.k6Requests > 0 ? { k6_requests: gate.k6Requests } : {}),
    requests: [...gate.requests],
  };
}
