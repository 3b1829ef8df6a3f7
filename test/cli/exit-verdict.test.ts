// The exit code is read from the result, never decided beside it: for every reason a target job
// exits 1, report.json's verdict is fail and `verdict_reasons` names that reason; with none, the
// verdict is pass, the reasons empty and the exit 0. In-process: the real target job (preflight,
// report folder, history) against the emulator on 127.0.0.1, with stages that produce each reason.

import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { targetJob, type Stages } from '../../src/cli/commands/target-job.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { CheckResult, Level, Report, Status } from '../../src/report/model.js';
import { emulatorProject } from '../helpers/emulator-project.js';
import { testIo } from '../helpers/cli.js';
import { loadFixture } from '../report/helpers.js';
import { expectValidReport } from '../report/schema.js';

let emulator: Emulator;
/** The run's own IO (an in-process CLI's): its environment holds the credentials, as a user's shell would. */
const signals = new EventEmitter();
let io: ReturnType<typeof testIo>;
beforeAll(async () => {
  emulator = await createEmulator({ port: 0 });
  const { clientId, clientSecret } = emulator.credentials;
  io = { ...testIo({ env: { CES_CLIENT_ID: clientId, CES_CLIENT_SECRET: clientSecret } }), signals };
});
afterAll(async () => {
  await emulator?.close();
});

const check = (status: Status, level: Level = 'must', tokenType = '"Bearer"'): CheckResult => ({
  id: 'token.type-bearer',
  title: 'The token type is Bearer',
  spec: '2',
  level,
  status,
  message: `${status}, as the test says`,
  duration_ms: 1,
  evidence: [],
  facts: { token_type: tokenType },
});
const checks =
  (...results: CheckResult[]): Stages['checks'] =>
  async () =>
    results;

/** A Ctrl-C: a SIGINT on the run's own signal source. */
const pressCtrlC = () => void signals.emit('SIGINT');

interface Case {
  name: string;
  stages: Stages;
  /** Lines added to the config: under `sandbox:`, and at the top level. */
  sandbox?: string[];
  config?: string[];
  /** A run before this one, against the same history. */
  before?: Stages;
  exit: 0 | 1;
  reasons: Array<[string, string]>;
}

const CASES: Case[] = [
  { name: 'every must check passes', stages: { checks: checks(check('pass')) }, exit: 0, reasons: [] },
  {
    name: 'a should check warns',
    stages: { checks: checks(check('pass'), { ...check('warn', 'should'), id: 'x.y' }) },
    exit: 0,
    reasons: [],
  },
  {
    // A should check only warns (src/runner/run-checks.ts); one that errors is no reason to fail either.
    name: 'a should check errors',
    stages: { checks: checks(check('pass'), { ...check('error', 'should'), id: 'x.y' }) },
    exit: 0,
    reasons: [],
  },
  {
    name: 'a must check fails',
    stages: { checks: checks(check('fail')) },
    exit: 1,
    reasons: [['check', 'token.type-bearer']],
  },
  {
    name: 'a must check errors',
    stages: { checks: checks(check('error')) },
    exit: 1,
    reasons: [['check', 'token.type-bearer']],
  },
  {
    name: 'a load threshold is crossed',
    stages: { checks: checks(check('pass')), load: async () => ({ result: loadFixture('fail').load! }) },
    exit: 1,
    reasons: [['load', 'token-per-call']],
  },
  {
    name: 'k6 fails the load run without naming a threshold',
    stages: { load: async () => ({ result: { k6_version: 'v1', run_id: 'r', scenarios: [], ok: false } }) },
    exit: 1,
    reasons: [['load', 'load']],
  },
  {
    name: 'a stage could not test what it was asked',
    stages: {
      checks: async (_, io) => {
        io.untested('checks', 'the test says so');
        return [check('pass')];
      },
    },
    exit: 1,
    reasons: [['not_tested', 'checks']],
  },
  {
    name: 'a stage throws',
    stages: {
      checks: checks(check('pass')),
      rateLimit: async () => {
        throw new Error('the probe broke');
      },
    },
    exit: 1,
    reasons: [['not_tested', 'rate_limit']],
  },
  {
    name: 'the run is interrupted (Ctrl-C)',
    stages: {
      checks: async () => {
        pressCtrlC();
        return [check('pass')];
      },
    },
    exit: 1,
    reasons: [['not_tested', 'run']],
  },
  {
    name: 'the production request budget is spent',
    sandbox: ['production: true'],
    config: ['production:', '  max_requests: 3'],
    stages: {
      checks: async ({ productionGate }) => {
        // What the preflight's health check left of the budget (it counts like every request sent there).
        while (!productionGate!.budgetReached) productionGate!.admit('/tokens', 'none');
        return [check('pass')];
      },
    },
    exit: 1,
    reasons: [['not_tested', 'production']],
  },
  {
    name: 'a change the regressions: policy fails',
    config: ['regressions:', '  fact: fail'],
    before: { checks: checks(check('pass', 'must', '"bearer"')) },
    stages: { checks: checks(check('pass')) },
    exit: 1,
    reasons: [['regression', 'token.type-bearer']],
  },
  {
    name: 'the same change where the policy only warns',
    before: { checks: checks(check('pass', 'must', '"bearer"')) },
    stages: { checks: checks(check('pass')) },
    exit: 0,
    reasons: [],
  },
];

/** A folder with a config for the emulator (history beside it, no ledger) and the case's lines. */
function project(sandbox: string[] = [], top: string[] = []) {
  const { dir, config } = emulatorProject(emulator, 'ces-exit-verdict-', { sandbox, top });
  let n = 0;
  return async (stages: Stages) => {
    const reportDir = join(dir, `r${++n}`);
    const exit = await targetJob({ config, 'report-dir': reportDir, 'no-color': true }, stages, io);
    return { exit, reportDir, report: JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report };
  };
}

describe('the exit code of a target job is its report.json verdict', () => {
  it.each(CASES)('$name: exit $exit', async ({ stages, sandbox, config, before, exit, reasons }) => {
    const run = project(sandbox, config);
    if (before) expect((await run(before)).exit).toBe(0);
    const { exit: code, report, reportDir } = await run(stages);
    const context = JSON.stringify({
      verdict: report.verdict,
      reasons: report.verdict_reasons,
      untested: report.untested,
    });
    expect(code, context).toBe(exit);
    expect(report.verdict, context).toBe(exit === 0 ? 'pass' : 'fail');
    expect(
      report.verdict_reasons.map((r) => [r.kind, r.subject]),
      context,
    ).toEqual(reasons);
    for (const r of report.verdict_reasons) expect(r.text.length, context).toBeGreaterThan(0);
    expectValidReport(reportDir);
  });
});
