// action.yml, the composite GitHub Action: its shape (the caches, the summary, the upload, the exit
// code last), and its own `run:` steps run locally against the emulator on 127.0.0.1 port 0, with
// the inputs as the runner would give them (test/ci/action-steps.ts).

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { userK6Dir } from '../../src/k6/locate.js';
import { PINNED_K6_VERSION } from '../../src/k6/version.js';
import { projectRoot, realK6 } from '../k6/support.js';
import { expectValidReport } from '../report/schema.js';
import { action, runAction, runScript } from './action-steps.js';

const k6 = await realK6();
const steps = action.runs.steps;
const uses = (prefix: string) => steps.filter((s) => s.uses?.startsWith(prefix));

describe('action.yml', () => {
  it('is a composite action with the documented inputs, caches, summary, upload, and the exit code last', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs).sort()).toEqual([
      'command',
      'config',
      'environment',
      'fail-on',
      'node-version',
      'report-dir',
      'state-dir',
    ]);
    expect(uses('actions/setup-node@')).toHaveLength(1);
    expect(uses('actions/cache/restore@')[0]?.with).toMatchObject({
      path: '${{ inputs.state-dir }}',
      'restore-keys': 'ces-harness-ledger-',
    });
    expect(uses('actions/cache/save@')[0]).toMatchObject({ if: 'always()', with: { path: '${{ inputs.state-dir }}' } });
    // k6 is cached per version, and Go set up only when `run` has no cached k6 to reuse.
    expect(uses('actions/cache@')[0]?.with?.key).toContain('${{ steps.inputs.outputs.k6-version }}');
    expect(uses('actions/setup-go@')[0]?.if).toBe(
      "inputs.command == 'run' && steps.k6-cache.outputs.cache-hit != 'true'",
    );
    expect(uses('actions/upload-artifact@')[0]).toMatchObject({
      if: 'always()',
      with: { path: '${{ inputs.report-dir }}' },
    });
    expect(steps.at(-1)).toMatchObject({ id: 'exit', if: 'always()' });
    // Expressions inside scripts are an injection risk and would not run locally: env only.
    for (const s of steps) expect(s.run ?? '').not.toContain('${{');
  });
});

// Side by side: each run is its own process tree on its own emulator (port 0) and workspace, and
// mostly waits on timers (the token expiry, the rate-limit recovery, k6's fixed duration).
const built = existsSync(join(projectRoot, 'dist', 'cli.js'));
describe.skipIf(!built)('the action steps, run locally', { concurrent: true }, () => {
  let broken: Emulator;
  beforeAll(async () => {
    broken = await createEmulator({ port: 0, faults: ['token-rotates'] });
  });
  afterAll(async () => {
    await broken?.close();
  });

  async function runner() {
    const temp = await mkdtemp(join(tmpdir(), 'ces-action-runner-'));
    const workspace = await mkdtemp(join(tmpdir(), 'ces-action-workspace-'));
    return { workspace, env: { RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: join(temp, 'summary.md') } };
  }

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
    [{ command: 'load' }, /command: "load" is not check or run/],
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
