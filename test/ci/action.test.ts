// action.yml, the composite GitHub Action: its shape (the caches, the summary, the upload, the exit
// code last), and its own `run:` steps run locally against the emulator on 127.0.0.1 port 0, with
// the inputs as the runner would give them (test/ci/action-steps.ts).

import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { userK6Dir } from '../../src/k6/locate.js';
import { PINNED_K6_VERSION } from '../../src/k6/version.js';
import { projectRoot, realK6 } from '../k6/support.js';
import { expectValidCutover, expectValidReport } from '../report/schema.js';
import type { CutoverReport } from '../../src/cutover/report-model.js';
import { action, runAction, runScript } from './action-steps.js';

const k6 = await realK6();
const steps = action.runs.steps;
const uses = (prefix: string) => steps.filter((s) => s.uses?.startsWith(prefix));

describe('action.yml', () => {
  it('is a composite action with the documented inputs, caches, summary, upload, and the exit code last', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'allow-production-load',
      'command',
      'config',
      'environment',
      'fail-on',
      'node-version',
      'report-dir',
      'state-dir',
    ]);
    expect(uses('actions/setup-node@')).toHaveLength(1);
    // The ledger cache and the report artifact are named by the inputs step (scripts/action-scope.mjs):
    // per leg, environment and config. The save runs whatever the verdict, once there is a key.
    const ledger = { path: '${{ inputs.state-dir }}', key: '${{ steps.inputs.outputs.ledger-key }}' };
    expect(uses('actions/cache/restore@')[0]?.with).toEqual({
      ...ledger,
      'restore-keys': '${{ steps.inputs.outputs.ledger-restore }}',
    });
    expect(uses('actions/cache/save@')[0]).toMatchObject({
      if: "always() && steps.inputs.outputs.ledger-key != ''",
      with: ledger,
    });
    // k6 is cached per version, and Go set up only when `run` has no cached k6 to reuse.
    expect(uses('actions/cache@')[0]?.with?.key).toContain('${{ steps.inputs.outputs.k6-version }}');
    expect(uses('actions/setup-go@')[0]?.if).toBe(
      "inputs.command == 'run' && steps.k6-cache.outputs.cache-hit != 'true'",
    );
    expect(uses('actions/upload-artifact@')[0]).toMatchObject({
      if: 'always()',
      with: { path: '${{ inputs.report-dir }}' },
    });
    expect(uses('actions/upload-artifact@')[0]?.with?.name).toMatch(/^\$\{\{ steps\.inputs\.outputs\.artifact \|\| /);
    expect(steps.at(-1)).toMatchObject({ id: 'exit', if: 'always()' });
    // Expressions inside scripts are an injection risk and would not run locally: env only.
    for (const s of steps) expect(s.run ?? '').not.toContain('${{');
  });
});

// Side by side: each run is its own process tree on its own emulator (port 0) and workspace, and
// mostly waits on timers (the token expiry, the rate-limit recovery, k6's fixed duration).
/** A fresh runner: its temp folder (the step summary in it) and the job's workspace. */
async function runner() {
  const temp = await mkdtemp(join(tmpdir(), 'ces-action-runner-'));
  const workspace = await mkdtemp(join(tmpdir(), 'ces-action-workspace-'));
  return { workspace, env: { RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: join(temp, 'summary.md') } };
}

const built = existsSync(join(projectRoot, 'dist', 'cli.js'));
describe.skipIf(!built)('the action steps, run locally', { concurrent: true }, () => {
  let broken: Emulator;
  beforeAll(async () => {
    broken = await createEmulator({ port: 0, faults: ['token-rotates'] });
  });
  afterAll(async () => {
    await broken?.close();
  });

  it('check on the built-in emulator: exit 0, report.md in the summary, a report that meets the schema', async () => {
    const { workspace, env } = await runner();
    const r = await runAction({ command: 'check' }, workspace, env);
    expect(r.code, r.out).toBe(0);
    expect(r.outputs['harness']).toEqual({ 'exit-code': '0' });
    const dir = join(workspace, 'reports', 'ces-harness');
    expect(await readFile(env.GITHUB_STEP_SUMMARY, 'utf8')).toBe(await readFile(join(dir, 'report.md'), 'utf8'));
    expectValidReport(dir);
  }, 120_000);

  it.skipIf(!k6)(
    'run on the built-in emulator: the k6 cache keyed on the pinned version, load in the report, exit 0',
    async () => {
      const { workspace, env } = await runner();
      const cache = join(workspace, 'xdg-cache');
      const r = await runAction({ command: 'run' }, workspace, { ...env, XDG_CACHE_HOME: cache, K6_BINARY: k6!.path });
      expect(r.code, r.out).toBe(0);
      // The folder actions/cache keeps is the one the harness builds k6 into at first use.
      expect(r.outputs['inputs']).toMatchObject({
        'k6-version': PINNED_K6_VERSION,
        'k6-dir': userK6Dir({ XDG_CACHE_HOME: cache }),
      });
      const report = JSON.parse(await readFile(join(workspace, 'reports', 'ces-harness', 'report.json'), 'utf8')) as {
        load: { ok: boolean } | null;
      };
      expect(report.load?.ok).toBe(true);
    },
    280_000,
  );

  it('a failing service: the summary still gets the report, and the action exits 1', async () => {
    const { workspace, env } = await runner();
    await writeFile(join(workspace, 'ca.pem'), broken.caPem);
    await writeFile(
      join(workspace, 'ces-harness.yaml'),
      [
        'environments:',
        '  staging:',
        `    base_url: ${broken.url}`,
        '    client_id: ${CES_CLIENT_ID}',
        '    client_secret: ${CES_CLIENT_SECRET}',
        '    ca_file: ca.pem',
        '',
      ].join('\n'),
    );
    const secrets = { CES_CLIENT_ID: broken.credentials.clientId, CES_CLIENT_SECRET: broken.credentials.clientSecret };
    const r = await runAction(
      { config: 'ces-harness.yaml', environment: 'staging', 'state-dir': 'state', 'report-dir': 'out' },
      workspace,
      { ...env, ...secrets },
    );
    expect(r.code, r.out).toBe(1);
    expect(r.out).not.toContain(broken.credentials.clientSecret);
    expect(await readFile(env.GITHUB_STEP_SUMMARY, 'utf8')).toMatch(/^## ❌ ces-harness: fail · staging/);
    const report = JSON.parse(await readFile(join(workspace, 'out', 'report.json'), 'utf8')) as {
      target: { environment: string };
      verdict: string;
    };
    expect(report).toMatchObject({ target: { environment: 'staging' }, verdict: 'fail' });
    // The ledger and history land in the folder the cache carries.
    expect(existsSync(join(workspace, 'state', 'history.jsonl'))).toBe(true);
  }, 120_000);

  it.each([
    [{ command: 'load' }, /command: "load" is not check, run or cutover/],
    [{ command: 'cutover' }, /command: cutover needs config: a config naming both environments/],
    [
      { command: 'cutover', config: 'ces-harness.yaml', environment: 'sandbox' },
      /command: cutover tests both environments of the config; leave environment: empty/,
    ],
    [{ 'allow-production-load': 'yes' }, /allow-production-load: "yes" is not true or false/],
    [{ 'fail-on': 'check,speed' }, /fail-on: unknown kind speed; known: check, fact, latency, rate_limit/],
  ])('bad input %o: one line and exit 2, with no report', async (inputs, line) => {
    const { workspace, env } = await runner();
    const r = await runAction(inputs, workspace, env);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(line);
    expect(r.outputs['harness']).toBeUndefined();
    expect(await readFile(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain('ces-harness wrote no report');
  });

  it('fail-on writes the config beside the given one with those kinds failing, the rest of the policy kept', async () => {
    const { workspace } = await runner();
    const config = join(workspace, 'ces-harness.yaml');
    await writeFile(
      config,
      'environments:\n  sandbox:\n    base_url: https://ces.example.test\nregressions:\n  latency: warn\n  runs: 5\n',
    );
    const r = await runScript(
      `node "${projectRoot}/scripts/action-config.mjs" "$CONFIG" "check, rate_limit"`,
      { CONFIG: config },
      workspace,
    );
    expect(r.code, r.out).toBe(0);
    const derived = r.out.trim();
    expect(derived).toBe(join(workspace, '.ces-harness.fail-on.yaml'));
    expect(parse(await readFile(derived, 'utf8'))).toEqual({
      environments: { sandbox: { base_url: 'https://ces.example.test' } },
      regressions: { latency: 'warn', runs: 5, check: 'fail', rate_limit: 'fail' },
    });
  });
});

describe("README's three-line workflow step", () => {
  it('uses only inputs the action has', async () => {
    const readme = await readFile(join(projectRoot, 'README.md'), 'utf8');
    const snippet = /\*\*On a schedule in GitHub Actions\*\*[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet?.trim().split('\n')).toHaveLength(3);
    const [usage] = parse(snippet!) as Array<{ uses: string; with: Record<string, string> }>;
    expect(usage!.uses).toMatch(/\/ces-harness@/);
    for (const input of Object.keys(usage!.with)) expect(Object.keys(action.inputs)).toContain(input);
  });
});

// What outlives a job is named by the inputs step alone (scripts/action-scope.mjs): run it as each
// leg would, in a workspace of its own, and compare what the legs would upload and cache under.
describe('the artifact and the ledger cache: one name per leg, environment and config', () => {
  interface Leg {
    job: string;
    index: number;
    inputs: Record<string, string>;
    /** The config's content in this leg's workspace. */
    config?: string;
  }
  async function names({ job, index, inputs, config }: Leg): Promise<Record<string, string>> {
    const { workspace, env } = await runner();
    if (config !== undefined) await writeFile(join(workspace, inputs.config!), config);
    const legEnv = {
      ...env,
      GITHUB_JOB: job,
      STRATEGY_JOB_INDEX: String(index),
      GITHUB_RUN_ID: '4242',
      GITHUB_RUN_ATTEMPT: '1',
    };
    const r = await runAction(inputs, workspace, legEnv, 'inputs');
    expect(r.code, r.out).toBe(0);
    return r.outputs['inputs']!;
  }

  it('differ across the legs of a matrix, environments, configs and jobs; a leg restores only its environment and config', async () => {
    const yaml = 'environments:\n  sandbox:\n    base_url: https://sandbox.example.test\n';
    const legs: Record<string, Leg> = {
      sandbox: { job: 'check', index: 0, inputs: { config: 'ces.yaml', environment: 'sandbox' }, config: yaml },
      production: { job: 'check', index: 1, inputs: { config: 'ces.yaml', environment: 'production' }, config: yaml },
      cutover: { job: 'cutover', index: 0, inputs: { config: 'ces.yaml', command: 'cutover' }, config: yaml },
      'another config file': {
        job: 'check',
        index: 0,
        inputs: { config: 'other.yaml', environment: 'sandbox' },
        config: yaml,
      },
      'the config edited': {
        job: 'check',
        index: 0,
        inputs: { config: 'ces.yaml', environment: 'sandbox' },
        config: `${yaml}    ca_file: ca.pem\n`,
      },
      'sandbox in another job': {
        job: 'nightly',
        index: 0,
        inputs: { config: 'ces.yaml', environment: 'sandbox' },
        config: yaml,
      },
      'the built-in emulator': { job: 'check', index: 0, inputs: {} },
    };
    const got = Object.fromEntries(
      await Promise.all(Object.entries(legs).map(async ([k, leg]) => [k, await names(leg)] as const)),
    );
    const column = (key: string) => Object.values(got).map((o) => o[key]!);
    // upload-artifact refuses a second artifact of one name in a run; a saved cache key is never written again.
    expect(new Set(column('artifact')).size).toBe(Object.keys(legs).length);
    expect(new Set(column('ledger-key')).size).toBe(Object.keys(legs).length);
    for (const name of column('artifact')) expect(name).toMatch(/^ces-harness-report-[A-Za-z0-9._-]+$/);
    // The same environment under the same config finds its own ledger from any job or leg; nothing else does.
    expect(got['sandbox in another job']!['ledger-restore']).toBe(got['sandbox']!['ledger-restore']);
    expect(new Set(column('ledger-restore')).size).toBe(Object.keys(legs).length - 1);
    for (const o of Object.values(got)) expect(o['ledger-key']!.startsWith(o['ledger-restore']!)).toBe(true);
  });
});

// examples/workflows/matrix.yml (docs/cutover.md shows it): its two check legs side by side, each
// on a runner of its own against the emulator pair's environment of its leg, then its cutover job.
describe.skipIf(!built)('examples/workflows/matrix.yml, run locally against the emulator pair', () => {
  interface Job {
    strategy?: { matrix: { environment: string[] } };
    steps: Array<{ uses?: string; with?: Record<string, string> }>;
  }
  const workflow = parse(readFileSync(join(projectRoot, 'examples', 'workflows', 'matrix.yml'), 'utf8')) as {
    env: Record<string, string>;
    jobs: { check: Job; cutover: Job };
  };
  const actionStep = (job: Job) => job.steps.find((s) => s.uses === './')!.with!;
  let pair: Emulator;
  beforeAll(async () => {
    pair = await createEmulator({ port: 0, environments: ['sandbox', 'production'] });
  });
  afterAll(async () => {
    await pair?.close();
  });

  /** A runner with the repository's ces-harness.yaml in its workspace and the workflow's secrets. */
  async function job() {
    const r = await runner();
    const blocks = pair.environments.map((e) => {
      const prefix = `CES_${e.name.toUpperCase()}`;
      return `  ${e.name}:\n    base_url: ${e.url}\n    client_id: \${${prefix}_CLIENT_ID}\n    client_secret: \${${prefix}_CLIENT_SECRET}\n    ca_file: ${e.caFile}\n`;
    });
    await writeFile(
      join(r.workspace, 'ces-harness.yaml'),
      `environments:\n${blocks.join('')}production:\n  max_requests: 1000\n`,
    );
    const credential = (secret: string) => {
      const [, name, part] = /^\$\{\{ secrets\.CES_(\w+?)_CLIENT_(ID|SECRET) \}\}$/.exec(secret)!;
      const { credentials } = pair.environments.find((e) => e.name === name!.toLowerCase())!;
      return part === 'ID' ? credentials.clientId : credentials.clientSecret;
    };
    const secrets = Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, credential(v)]));
    const env: Record<string, string> = { ...r.env, ...secrets, GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1' };
    return { workspace: r.workspace, env };
  }

  it('each leg checks its environment under its own names, then cutover gives its verdict as its exit code', async () => {
    const legs = workflow.jobs.check.strategy!.matrix.environment;
    expect(legs).toEqual(['sandbox', 'production']);
    const checks = await Promise.all(
      legs.map(async (environment, index) => {
        const { workspace, env } = await job();
        const inputs = Object.fromEntries(
          Object.entries(actionStep(workflow.jobs.check)).map(([k, v]) => [
            k,
            v.replaceAll('${{ matrix.environment }}', environment),
          ]),
        );
        const r = await runAction(inputs, workspace, {
          ...env,
          GITHUB_JOB: 'check',
          STRATEGY_JOB_INDEX: String(index),
        });
        const report = JSON.parse(await readFile(join(workspace, inputs['report-dir']!, 'report.json'), 'utf8')) as {
          target: { environment: string };
        };
        return { environment, r, report, secret: env['CES_PRODUCTION_CLIENT_SECRET']! };
      }),
    );
    for (const { environment, r, report, secret } of checks) {
      expect(r.code, `${environment}: ${r.out}`).toBe(0);
      expect(report.target.environment).toBe(environment);
      expect(r.out).not.toContain(secret);
    }
    expect(checks[0]!.r.outputs['inputs']!['artifact']).not.toBe(checks[1]!.r.outputs['inputs']!['artifact']);
    expect(checks[0]!.r.outputs['inputs']!['ledger-restore']).not.toBe(
      checks[1]!.r.outputs['inputs']!['ledger-restore'],
    );

    const { workspace, env } = await job();
    const inputs = actionStep(workflow.jobs.cutover);
    const r = await runAction(inputs, workspace, { ...env, GITHUB_JOB: 'cutover', STRATEGY_JOB_INDEX: '0' });
    const dir = join(workspace, inputs['report-dir']!);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as CutoverReport;
    expectValidCutover(report);
    expect(r.code, r.out).toBe(report.cutover.verdict === 'READY' ? 0 : 1);
    expect(r.outputs['harness']).toEqual({ 'exit-code': String(r.code) });
    expect(await readFile(env['GITHUB_STEP_SUMMARY']!, 'utf8')).toBe(await readFile(join(dir, 'report.md'), 'utf8'));
    expect(r.out).not.toContain(env['CES_PRODUCTION_CLIENT_SECRET']);
  }, 400_000);
});
