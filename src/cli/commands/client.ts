// `ces-harness client [--scenario NAME]... -- <command> [args...]`: the user's own client, run once
// per scenario against a fresh built-in emulator, judged by the client checks, reported in the same
// folder and formats as `check`. Everything the user can get wrong is found before the first run;
// whatever the client does after that (nothing at all, included), the report is written.

import { setMaxListeners } from 'node:events';
import { commandProblem } from '../../client/command-path.js';
import { clientRun, judgeClient, madeNoRequest } from '../../client/judge.js';
import type { ClientRunRecord } from '../../client/record.js';
import { recordClientRun } from '../../client/run-client.js';
import { CLIENT_SCENARIOS, clientScenario, type ClientScenario } from '../../emulator/scenarios/index.js';
import { HarnessError, usageError } from '../../errors.js';
import { exitCodeOf, type Untested } from '../../report/model.js';
import { removeEmptyDirs } from '../../fs/writable.js';
import { Redactor } from '../../http/redact.js';
import { harnessWords } from '../harness-words.js';
import { buildReport } from '../../report/build.js';
import { VERSION } from '../../version.js';
import { flagValue, type Options } from '../flags.js';
import { writeReportFolder } from '../report-folder.js';
import { prepareReportPlace } from '../report-place.js';
import { handleStopSignals } from '../stop-signals.js';
import { servedAt } from '../../client/served-at.js';
import { workingAtStop } from '../../client/stall.js';
import { createTerminal, resultLine, summaryLines } from '../terminal.js';
import type { CliIo } from '../io.js';

/** A client that sends more than this in one scenario run is flooding; well past any sane run. */
export const MAX_CLIENT_REQUESTS = 400;

const EXAMPLE = 'e.g. ces-harness client -- node examples/clients/node-undici.mjs';

function selectedScenarios(names: readonly string[] | undefined): ClientScenario[] {
  if (!names || names.length === 0) return [...CLIENT_SCENARIOS];
  return [...new Set(names)].map((name) => {
    const found = clientScenario(name);
    if (!found)
      throw usageError(`unknown client scenario "${name}"; known: ${CLIENT_SCENARIOS.map((s) => s.name).join(', ')}`);
    return found;
  });
}

/** A client that never reached the emulator has shown nothing to judge: what it did instead, in one line. */
function silence(argv: readonly string[], record: ClientRunRecord): string {
  const p = record.process;
  const took = `${(p.durationMs / 1000).toFixed(1)} s`;
  const how =
    p.stopped === 'time-limit'
      ? `made no request to CES_BASE_URL in ${took} and was stopped at the time limit`
      : p.stopped === 'secret-printed'
        ? `printed its client secret after ${took}, before any request, and was stopped`
        : p.stopped !== null
          ? `was stopped (${p.stopped}) after ${took} before any request`
          : `exited with ${p.signal ?? `code ${String(p.exitCode)}`} after ${took} without a request to CES_BASE_URL`;
  return `client ${argv[0] ?? ''} ${how} (scenario ${record.scenario}): it must read CES_BASE_URL, CES_CLIENT_ID, CES_CLIENT_SECRET and CES_CA_FILE and call the service; nothing was tested`;
}

/** The runs the harness ended while the client was still at work: said once in the terminal, as in the report's run table. */
function stoppedWorking(records: readonly ClientRunRecord[], timeLimitS: number): string | null {
  const names = records.filter((r) => workingAtStop(r) === true).map((r) => r.scenario);
  return names.length === 0
    ? null
    : `client: stopped at the ${timeLimitS} s time limit while still working in ${names.join(', ')}: judged on what it did`;
}

export async function clientCommand(options: Options, argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === '') throw usageError(`client needs the command to run after --, ${EXAMPLE}`);
  const scenarios = selectedScenarios(options.scenario);
  const problem = commandProblem(argv[0]!, io.env['PATH']);
  if (problem !== undefined) throw new HarnessError('CLIENT_COMMAND_UNUSABLE', problem);
  const timeLimitS = flagValue(options, 'time-limit');
  const place = prepareReportPlace(options['report-dir'], io.cwd);

  const redactor = new Redactor({ keep: harnessWords() });
  const terminal = createTerminal(redactor, io, { noColor: options['no-color'] === true });
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const removeStopHandlers = handleStopSignals(controller, terminal.err, io);
  let written = false;
  try {
    const startedAt = new Date();
    const records: ClientRunRecord[] = [];
    const untested: Untested[] = [];
    for (const [i, scenario] of scenarios.entries()) {
      if (controller.signal.aborted) break;
      terminal.progress(`client: scenario ${scenario.name} (up to ${timeLimitS} s)`);
      const record = await recordClientRun({
        argv,
        env: io.env,
        cwd: io.cwd,
        scenario,
        timeLimitS,
        maxRequests: MAX_CLIENT_REQUESTS,
        redactor,
        onLine: (line) => terminal.err(`client| ${line}`),
        signal: controller.signal,
      });
      records.push(record);
      // The same client would be as silent in the scenarios left: say so now, report it, run no more.
      if (madeNoRequest(record) && !controller.signal.aborted) {
        const line = silence(argv, record);
        terminal.err(`ces-harness: ${line}`);
        const left = scenarios.slice(i + 1).map((s) => s.name);
        untested.push({ stage: 'client', reason: `${line}${left.length > 0 ? `; not run: ${left.join(', ')}` : ''}` });
        break;
      }
    }
    // Read once: the report says so exactly when the exit code does.
    const interrupted = controller.signal.aborted;
    const checks = judgeClient(records);
    for (const result of checks) terminal.out(resultLine(result));
    const working = stoppedWorking(records, timeLimitS);
    if (working !== null) terminal.out(working);
    const describe = (name: string) => CLIENT_SCENARIOS.find((s) => s.name === name)?.description ?? '';
    const report = buildReport({
      version: VERSION,
      target: { environment: 'client', base_url: servedAt(records), emulated: true },
      startedAt,
      finishedAt: new Date(),
      checks: records.length > 0 ? checks : [],
      client: {
        command: argv.join(' '),
        time_limit_s: timeLimitS,
        runs: records.map((r) => clientRun(r, describe(r.scenario))),
      },
      untested: interrupted
        ? [...untested, { stage: 'client', reason: 'interrupted before every scenario ran: this report is partial' }]
        : untested,
    });
    const dir = place.claim('client', startedAt);
    writeReportFolder(dir, report, redactor);
    written = true;
    for (const line of summaryLines(report, dir)) terminal.out(line);
    return exitCodeOf(report);
  } finally {
    removeStopHandlers();
    if (!written) removeEmptyDirs(place.created);
  }
}
