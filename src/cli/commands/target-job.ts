// The commands that talk to a target (run, check, load, ratelimit) share one shape: prepare the
// target, run their stages, fold everything into one report, write the folder, print a summary.
// The exit code is the report's verdict (exitCodeOf): every reason for a 1 is in the report.

import { setMaxListeners } from 'node:events';
import { Redactor } from '../../http/redact.js';
import { harnessWords } from '../harness-words.js';
import { budgetReachedLine, heldBackByBudget, type ProductionGate } from '../../http/production-gate.js';
import { runIo, type Line, type RunIo, type Stage, type StageLines, type StageTarget } from '../../stages/run-io.js';
import { productionGateFor } from '../../runner/context.js';
import { auditPreflight } from '../../runner/preflight.js';
import { isProduction } from '../../config/target.js';
import {
  exitCodeOf,
  type CheckResult,
  type LoadResult,
  type ChecksLeftOut,
  type RateLimitResult,
  type Report,
  type TransportFacts,
  type Untested,
} from '../../report/model.js';
import { stopsTheRun } from '../../errors.js';
import { removeEmptyDirs } from '../../fs/writable.js';
import { VERSION } from '../../version.js';
import type { Options } from '../flags.js';
import type { CliIo } from '../io.js';
import { prepareTarget, type PreparedTarget, type TargetFlags } from '../prepare-target.js';
import { prepareReportPlace, type ReportPlace } from '../report-place.js';
import { handleStopSignals } from '../stop-signals.js';
import { createTerminal, summaryLines, type Terminal } from '../terminal.js';
import { checksBesideLoad } from './side-by-side.js';
import { stageTimer } from '../stage-times.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';
import type { SpareWorker } from '../../emulator/worker/host.js';
import type { Clock } from '../../time/clock.js';

export interface Stages {
  checks?: Stage<CheckResult[]>;
  load?: Stage<{ result: LoadResult; files?: Record<string, string> }> & {
    /** `run`: the scenarios only the rate limit kept from a verdict run again once it is sized (stages/load-sized.ts). */
    sizesAgain?: boolean;
  };
  rateLimit?: Stage<RateLimitResult>;
  /** The checks --only/--skip left out (check.ts checksLeftOut): the report says them outside its verdict. */
  checksLeftOut?: ChecksLeftOut;
  /**
   * For `run`: against production without --allow-production-load, leave out the load and
   * rate-limit stages with a note instead of refusing the whole job (the checks are still wanted).
   */
  probingOptional?: boolean;
}

export async function targetJob(
  options: Options,
  stages: Stages,
  io: CliIo,
  /** A worker thread already loading the built-in emulator's code (emulator-spare.ts), if one was started. */
  emulatorSpare?: SpareWorker,
): Promise<number> {
  const startedMs = performance.now();
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
    const job = await prepareJob(
      options['report-dir'],
      options,
      redactor,
      terminal,
      io,
      (settings) => {
        // A command that is only load or probing is refused on production before anything is sent;
        // `run` leaves those stages out instead (probingOptional), and keeps its checks.
        if (stages.probingOptional) return;
        for (const stage of [stages.load, stages.rateLimit]) stage?.refusesBeforeRequests?.(settings);
      },
      emulatorSpare,
    );
    try {
      return await runStages(
        job,
        stages,
        redactor,
        terminal,
        { signal: controller.signal, clock: io.clock },
        startedMs,
      );
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

/**
 * The stages, then one report from whatever they returned; the exit code of the run. The checks
 * and the load run side by side when the load has instances of the built-in emulator to itself
 * (isolatedTarget): they then share no limit, no token store and no connection. Against a real
 * service they take turns, as every stage there spends the one limit. The rate-limit sizing runs
 * last and alone in every case: its probe reads the limit from what its own requests get, and
 * traffic beside it, on the same limit or the same two cores, would be read as the limit.
 */
async function runStages(
  { prepared, reportDir, startedAt }: Job,
  stages: Stages,
  redactor: Redactor,
  terminal: Terminal,
  { signal, clock }: { signal: AbortSignal; clock: Clock | undefined },
  startedMs: number,
): Promise<number> {
  const { settings } = prepared;
  const productionGate = productionGateFor(settings.production);
  auditPreflight(productionGate, settings.target, prepared.preflight);
  let transport: TransportFacts | undefined;
  const on: StageTarget = { ...prepared, reportDir, productionGate };
  const { lines, loadReporting } = reportingFromFirstLine(terminal);
  // Each stage's not-tested reasons in a list of its own: the report gives them in stage order,
  // whichever stage finished first.
  const said = { checks: [] as Untested[], load: [] as Untested[], rateLimit: [] as Untested[], run: [] as Untested[] };
  const ioOf = (list: Untested[], stageLines: StageLines = lines, stageSignal: AbortSignal = signal): RunIo => ({
    ...runIo(
      stageLines,
      redactor,
      stageSignal,
      (stage, reason) => {
        list.push({ stage, reason });
        terminal.err(`${stage}: not tested: ${reason}`);
      },
      clock,
    ),
    sawTransport: (facts) => void (transport = facts),
  });
  const io = ioOf(said.run);
  // A stage that throws still leaves a report: the other stages' results and why this one is missing.
  const guarded = async <T>(stage: Stage<T>, name: Untested['stage'], stageIo: RunIo): Promise<T | undefined> => {
    try {
      return await stage(on, stageIo);
    } catch (err) {
      if (stopsTheRun(err)) throw err;
      stageIo.untested(name, err instanceof Error ? err.message : String(err));
      return undefined;
    }
  };
  const optional = async <T>(
    stage: Stage<T> | undefined,
    name: Untested['stage'],
    what: string,
    stageIo: RunIo,
  ): Promise<T | undefined> => {
    if (!stage) return undefined;
    if (signal.aborted) {
      stageIo.untested(
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
    return guarded(stage, name, stageIo);
  };
  const { timed, line: timeLine } = stageTimer();
  const beside = stages.checks !== undefined && stages.load !== undefined && on.isolatedTarget !== undefined;
  const runChecks = async (extra: Partial<RunIo> = {}) =>
    (stages.checks
      ? await timed('checks', () => guarded(stages.checks!, 'checks', { ...ioOf(said.checks), ...extra }))
      : []) ?? [];
  const runLoad = async (name: string, extra: Partial<RunIo> & { lines?: StageLines; signal?: AbortSignal } = {}) => {
    const { lines: loadLines, signal: loadSignal, ...rest } = extra;
    return stages.load
      ? timed(name, () =>
          optional(stages.load, 'load', 'load run', { ...ioOf(said.load, loadLines, loadSignal), ...rest }),
        )
      : undefined;
  };
  const [checks, load] = beside
    ? await checksBesideLoad(lines, signal, {
        checks: runChecks,
        load: (extra) => runLoad('load (beside the checks)', extra),
      })
    : [await runChecks(), await runLoad('load')];
  // `run` against a limit below its default load: the scenarios it kept from a verdict, again at
  // rates sized from the policy the sizing proved; when nothing was proven, the first results stand.
  const loadSizedAgain = async (first: NonNullable<typeof load>, limit: RateLimitResult | null) => {
    const [{ scenariosToSize }, stage] = await Promise.all([
      import('../../stages/load-sized.js'),
      import('../../stages/load.js'),
    ]);
    const toSize = scenariosToSize(first.result, limit, settings.load, settings.rateLimit.maxRps);
    if (toSize.length === 0 || signal.aborted) return first;
    const again = await timed('load sized again', () =>
      guarded(
        (target, stageIo) => stage.loadSizedAgain(target, stageIo, first.result, toSize),
        'load',
        ioOf(said.load),
      ),
    );
    return again ? { ...first, result: again } : first;
  };
  const rateLimit =
    (stages.rateLimit
      ? await timed('rate-limit sizing', () =>
          optional(stages.rateLimit, 'rate_limit', 'rate-limit sizing', ioOf(said.rateLimit)),
        )
      : undefined) ?? null;
  const loaded = load && stages.load?.sizesAgain ? await loadSizedAgain(load, rateLimit) : load;
  // A scenario only the rate limit kept from a verdict (its result says why) is not tested, said once
  // its last run is known.
  for (const sc of loaded?.result.scenarios ?? [])
    if (sc.not_tested !== undefined) ioOf(said.load).untested('load', sc.not_tested);
  // Every stage is done with the built-in emulator: its threads end while the report is written
  // (their close took 30-60 ms after the summary). A failure to stop is close()'s to report, after.
  prepared.stopEmulators().catch(() => undefined);
  const [{ buildReport }, { historyStep }, { writeReportFolder }] = await loadReporting();
  const untested = () => [...said.checks, ...said.load, ...said.rateLimit, ...said.run];
  // Read once: a stop that comes while the report is written finds every stage already done.
  const interrupted = signal.aborted;
  if (interrupted) io.untested('run', 'interrupted before it finished: this report is partial');
  // Requests held back by the budget were never sent: a run that could not send them tested less than asked.
  if (productionGate.budgetReached)
    io.untested(
      'production',
      budgetReachedLine(
        productionGate,
        checks.filter((c) => c.status === 'skip' && heldBackByBudget(c.message)).map((c) => c.id),
      ),
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
    load: loaded?.result ?? null,
    rateLimit,
    untested: untested(),
    ...(stages.checksLeftOut ? { checksLeftOut: stages.checksLeftOut } : {}),
    notes: settings.warnings,
    ...(touchesProduction(settings) ? { production: productionAudit(productionGate) } : {}),
  });
  // Redacted before the history keeps it, as the report folder is: a secret in the base URL's
  // query, say, must not reach history.jsonl either.
  const remembered = historyStep(redactor.deep(report), prepared.history, settings.regressions, terminal, interrupted);
  writeReportFolder(reportDir, remembered.report, redactor, { ...(loaded?.files ?? {}), ...remembered.files });
  for (const line of summaryLines(remembered.report, reportDir)) terminal.out(line);
  const times = timeLine(performance.now() - startedMs);
  if (times) terminal.out(times);
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
  io: Pick<CliIo, 'env' | 'cwd' | 'clock'>,
  refusesBeforeRequests: (settings: PreparedTarget['settings']) => void,
  emulatorSpare?: SpareWorker,
): Promise<Job> {
  const place = prepareReportPlace(reportDirFlag, io.cwd);
  let prepared: PreparedTarget | undefined;
  try {
    // The dated folder is claimed before the preflight's request: a name too long (a long
    // environment name) is exit 2 before anything is sent.
    let claimed: { reportDir: string; startedAt: Date } | undefined;
    prepared = await prepareTarget(
      flags,
      redactor,
      terminal,
      io,
      (settings) => {
        refusesBeforeRequests(settings);
        const startedAt = new Date();
        claimed = { reportDir: place.claim(settings.target.environment, startedAt), startedAt };
      },
      emulatorSpare,
    );
    return { prepared, place, ...claimed! };
  } catch (err) {
    await prepared?.close();
    removeEmptyDirs(place.created);
    throw err;
  }
}

/** The modules that write the report: the renderers, the history's comparison. */
const reportModules = () =>
  Promise.all([import('../../report/build.js'), import('../../history/step.js'), import('../report-folder.js')]);

/**
 * The report's modules are not needed before the last result: they load while the stages wait on
 * the service, from the first line a stage says (the checks' first result comes after the run's
 * first token), so they neither delay the first request nor wait for the last. A run that ends
 * without a report (a stop that ends the run) leaves the load unawaited, and its failure unheard.
 */
function reportingFromFirstLine(terminal: StageLines): {
  lines: StageLines;
  loadReporting: () => ReturnType<typeof reportModules>;
} {
  let reporting: ReturnType<typeof reportModules> | undefined;
  const loadReporting = () => (reporting ??= reportModules());
  const lines: StageLines = {
    out: (line) => {
      void loadReporting().catch(() => undefined);
      terminal.out(line);
    },
    err: (line) => terminal.err(line),
    progress: (line) => terminal.progress(line),
  };
  return { lines, loadReporting };
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
