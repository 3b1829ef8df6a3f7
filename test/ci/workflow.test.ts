// The scheduled sandbox workflow: actionlint accepts it, and its own step scripts (config, check,
// summary), run locally against the emulator twice with the ledger carried over, prove a token
// of the first run expired, as two scheduled runs prove the 24-hour expiry on the sandbox.

import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { projectRoot } from '../k6/support.js';
import { actionlint } from './actionlint.js';

const WORKFLOW = join(projectRoot, '.github', 'workflows', 'sandbox-conformance.yml');

interface Step { id?: string; name?: string; uses?: string; run?: string; if?: string; with?: Record<string, unknown>; env?: Record<string, string> }
interface Workflow { on: Record<string, unknown>; jobs: Record<string, { steps: Step[] }> }
const workflow = parse(await readFile(WORKFLOW, 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs)[0]!.steps;
const step = (id: string) => steps.find((s) => s.id === id) ?? expect.fail(`no step with id ${id}`);

describe('sandbox-conformance.yml', () => {
  it('passes actionlint', async () => {
    const bin = await actionlint();
    if (bin === undefined) return;
    const run = await promisify(execFile)(bin, ['-no-color', WORKFLOW]).catch((e: { code: number; stdout: string }) => e);
    expect('code' in run ? run.stdout : '').toBe('');
  }, 300_000);

  it('runs on a schedule and by hand, carries the ledger, and always publishes the report', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    const uses = (prefix: string) => steps.find((s) => s.uses?.startsWith(prefix));
    expect(uses('actions/cache/restore@')?.with).toMatchObject({ path: '.ces-harness/', 'restore-keys': 'ces-harness-ledger-' });
    expect(uses('actions/cache/save@')?.if).toBe('always()');
    expect(uses('actions/upload-artifact@')).toMatchObject({ if: 'always()', with: { path: 'reports/ci/' } });
    expect(uses('mikepenz/action-junit-report@')).toMatchObject({ if: 'always()', with: { report_paths: 'reports/ci/junit.xml' } });
    expect(step('check').env).toEqual({
      CES_SANDBOX_CLIENT_ID: '${{ secrets.CES_SANDBOX_CLIENT_ID }}',
      CES_SANDBOX_CLIENT_SECRET: '${{ secrets.CES_SANDBOX_CLIENT_SECRET }}',
      CONFIG_FILE: '${{ steps.config.outputs.file }}',
    });
    // It runs only `check`: no k6 build in npm ci, so no Go toolchain either.
    expect(step('install')).toMatchObject({ run: 'npm ci', env: { CES_SKIP_K6_PROVISION: '1' } });
    expect(steps.some((s) => s.uses?.startsWith('actions/setup-go@'))).toBe(false);
    expect(steps.filter((s) => s.run !== undefined).map((s) => s.run!)).not.toContainEqual(expect.stringMatching(/ces-harness\.js (run|load|ratelimit)\b/));
    // Expressions inside scripts are an injection risk and would not run locally: env only.
    for (const s of steps) expect(s.run ?? '').not.toContain('${{');
  });
});

describe.skipIf(!existsSync(join(projectRoot, 'dist', 'cli.js')))('the workflow steps, run locally against the emulator', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 2 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  /** One step's script in bash, in a fake workspace, with the Actions variables it reads. */
  function runStep(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
    return new Promise((done, fail) => {
      const child = spawn('bash', ['-e', '-c', script], { cwd: env.GITHUB_WORKSPACE, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (out += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('error', fail);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, out });
      });
    });
  }

  it('a second scheduled run proves the first run\'s token expired (token.ledger passes)', async () => {
    const statuses: Array<Record<string, string>> = [];
    // One workspace for both runs: it stands for the ledger the cache carries from run to run.
    const workspace = await mkdtemp(join(tmpdir(), 'ces-ci-workspace-'));
    await symlink(join(projectRoot, 'bin'), join(workspace, 'bin'));
    for (const run of [1, 2]) {
      const temp = await mkdtemp(join(tmpdir(), 'ces-ci-runner-'));
      const summary = join(temp, 'step-summary.md');
      const output = join(temp, 'output');
      await writeFile(output, '');
      const actions = { GITHUB_WORKSPACE: workspace, RUNNER_TEMP: temp, GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output };

      const config = await runStep(step('config').run!, { ...actions, CES_SANDBOX_BASE_URL: emulator.url, CES_SANDBOX_CA_PEM: emulator.caPem, CES_SANDBOX_TOKEN_LIFETIME_S: '2' });
      expect(config.code, config.out).toBe(0);
      const configFile = /^file=(.*)$/m.exec(await readFile(output, 'utf8'))?.[1];
      expect(configFile).toBe(join(temp, 'ces-harness.yaml'));

      const check = await runStep(step('check').run!, {
        ...actions,
        CES_SANDBOX_CLIENT_ID: emulator.credentials.clientId,
        CES_SANDBOX_CLIENT_SECRET: emulator.credentials.clientSecret,
        CONFIG_FILE: configFile!,
      });
      expect(check.code, check.out).toBe(0);
      expect(check.out).not.toContain(emulator.credentials.clientSecret);

      expect((await runStep(step('summary').run!, actions)).code).toBe(0);
      const report = JSON.parse(await readFile(join(workspace, 'reports', 'ci', 'report.json'), 'utf8')) as { checks: Array<{ id: string; status: string; message: string }> };
      expect(await readFile(summary, 'utf8')).toBe(await readFile(join(workspace, 'reports', 'ci', 'report.md'), 'utf8'));
      expect(existsSync(join(workspace, 'reports', 'ci', 'junit.xml'))).toBe(true);
      expect(existsSync(join(workspace, '.ces-harness', 'token-ledger.json'))).toBe(true);
      statuses.push(Object.fromEntries(report.checks.map((c) => [c.id, `${c.status}: ${c.message}`])));
      // The tokens of run 1 must outlive their 2 s (and the 2 s clock tolerance) before run 2.
      if (run === 1) await new Promise((r) => setTimeout(r, 5_000));
    }
    expect(statuses[0]!['token.ledger']).toMatch(/^skip: /);
    expect(statuses[1]!['token.ledger']).toMatch(/^pass: /);
  }, 180_000);
});
