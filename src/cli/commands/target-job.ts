// The commands that talk to a target (run, check, load, ratelimit) share one shape: prepare the
// target, run their stages, fold everything into one report, write the folder, print a summary.

import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import { Redactor } from '../../http/redact.js';
import { buildReport } from '../../report/build.js';
import type { CheckResult, LoadResult, RateLimitResult } from '../../report/model.js';
import { VERSION } from '../../version.js';
import type { Options } from '../flags.js';
import { prepareTarget, type PreparedTarget } from '../prepare-target.js';
import { defaultReportDir, writeReportFolder } from '../report-folder.js';
import { createTerminal, summaryLines, type Terminal } from '../terminal.js';

export interface StageIo {
  prepared: PreparedTarget;
  options: Options;
  redactor: Redactor;
  terminal: Terminal;
  signal: AbortSignal;
  reportDir: string;
}

export interface Stages {
  checks?: (io: StageIo) => Promise<CheckResult[]>;
  load?: (io: StageIo) => Promise<{ result: LoadResult; files?: Record<string, string> }>;
  rateLimit?: (io: StageIo) => Promise<RateLimitResult>;
  /**
   * For `run`: against production without --allow-production-load, leave out the load and
   * rate-limit stages with a note instead of refusing the whole job (the checks are still wanted).
   */
  probingOptional?: boolean;
}

export async function targetJob(options: Options, stages: Stages): Promise<number> {
  const redactor = new Redactor();
  const terminal = createTerminal(redactor, { noColor: options['no-color'] === true });
  // First Ctrl-C stops the run and still writes a partial report; a second one exits at once.
  const controller = new AbortController();
  // Every concurrent request and handshake listens to this one signal; dozens is expected, not a leak.
  setMaxListeners(0, controller.signal);
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(130);
    terminal.err('interrupted: finishing what is in flight and writing a partial report (Ctrl-C again to quit now)');
    controller.abort(new Error('interrupted by the user'));
  };
  process.on('SIGINT', onSigint);
  const prepared = await prepareTarget(options, redactor, terminal);
  const startedAt = new Date();
  const reportDir = options['report-dir'] ? resolve(options['report-dir']) : defaultReportDir(process.cwd(), prepared.target.environment, startedAt);
  const io: StageIo = { prepared, options, redactor, terminal, signal: controller.signal, reportDir };
  try {
    const checks = stages.checks ? await stages.checks(io) : [];
    const optional = async <T>(stage: ((io: StageIo) => Promise<T>) | undefined, what: string): Promise<T | undefined> => {
      if (!stage || controller.signal.aborted) return undefined;
      if (stages.probingOptional && !prepared.rateLimit.probingAllowed) {
        terminal.err(`${what} left out: ${prepared.target.environment} is production (pass --allow-production-load to include it)`);
        return undefined;
      }
      return stage(io);
    };
    const load = await optional(stages.load, 'load run');
    const rateLimit = (await optional(stages.rateLimit, 'rate-limit sizing')) ?? null;
    const report = buildReport({
      version: VERSION,
      target: { environment: prepared.target.environment, base_url: prepared.target.baseUrl, ...(prepared.target.emulated ? { emulated: true } : {}) },
      startedAt,
      finishedAt: new Date(),
      checks,
      load: load?.result ?? null,
      rateLimit,
    });
    writeReportFolder(reportDir, report, redactor, load?.files ?? {});
    for (const line of summaryLines(report, reportDir, terminal.color)) terminal.out(line);
    return report.verdict === 'pass' && !controller.signal.aborted ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    await prepared.close();
  }
}
