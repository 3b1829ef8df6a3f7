// The scheduled sandbox workflow (actionlint: test/ci/actionlint.test.ts): its own
// config step with the action's steps (test/ci/action-steps.ts), run locally against the emulator
// twice with the ledger carried over, prove a token of the first run expired, as two scheduled runs
// prove the 24-hour expiry on the sandbox.

import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { generateCertificates } from '../../src/emulator/certs/generate.js';
import type { Change, NotCompared } from '../../src/report/sections/since/model.js';
import { mdInline } from '../../src/report/common/md-text.js';
import { DEFAULT_HISTORY_FILE } from '../../src/config/resolve.js';
import { projectRoot } from '../k6/support.js';
import { action, runAction, runScript } from './action-steps.js';

const WORKFLOW = join(projectRoot, '.github', 'workflows', 'sandbox-conformance.yml');

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { steps: Step[] }>;
}
const workflow = parse(await readFile(WORKFLOW, 'utf8')) as Workflow;
const steps = Object.values(workflow.jobs)[0]!.steps;
const step = (id: string) => steps.find((s) => s.id === id) ?? expect.fail(`no step with id ${id}`);

describe('sandbox-conformance.yml', () => {
  it('runs on a schedule and by hand, carries the ledger and the run history, and always publishes the report, through the action', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    const actionUses = (prefix: string) => action.runs.steps.find((s) => s.uses?.startsWith(prefix));
    expect(step('check')).toMatchObject({
      uses: './',
      env: {
        CES_SANDBOX_CLIENT_ID: '${{ secrets.CES_SANDBOX_CLIENT_ID }}',
        CES_SANDBOX_CLIENT_SECRET: '${{ secrets.CES_SANDBOX_CLIENT_SECRET }}',
      },
      with: {
        config: '${{ steps.config.outputs.file }}',
        command: 'check',
        'state-dir': '.ces-harness',
        'report-dir': 'reports/ci',
      },
    });
    // The cached folder holds the run history too, where the harness keeps it by default.
    expect(DEFAULT_HISTORY_FILE.startsWith(`${step('check').with!['state-dir'] as string}/`)).toBe(true);
    expect(actionUses('actions/cache/restore@')?.with).toMatchObject({
      'restore-keys': '${{ steps.inputs.outputs.ledger-restore }}',
    });
    expect(actionUses('actions/cache/save@')?.if).toMatch(/^always\(\) && /);
    expect(actionUses('actions/upload-artifact@')?.if).toBe('always()');
    expect(steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report@'))).toMatchObject({
      if: 'always()',
      with: { report_paths: 'reports/ci/junit.xml' },
    });
    // It runs only `check`: the action sets up Go only for `run`, and its install builds no k6.
    expect(action.runs.steps.find((s) => s.id === 'install')).toMatchObject({ env: { CES_SKIP_K6_PROVISION: '1' } });
    expect(steps.some((s) => s.uses?.startsWith('actions/setup-go@'))).toBe(false);
    // Expressions inside scripts are an injection risk and would not run locally: env only.
    for (const s of steps) expect(s.run ?? '').not.toContain('${{');
  });
});

it("a scheduled run restores the ledger the run before it saved: one restore prefix, each run's key under it", async () => {
  const scope = async (runId: string) => {
    const r = await runScript(
      `node "${projectRoot}/scripts/action-scope.mjs" check "" "$CONFIG"`,
      { CONFIG: join(projectRoot, 'action.yml'), GITHUB_JOB: 'conformance', GITHUB_RUN_ID: runId },
      projectRoot,
    );
    return Object.fromEntries([...r.out.matchAll(/^([\w-]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  };
  const [first, second] = [await scope('100'), await scope('101')];
  expect(second['ledger-restore']).toBe(first['ledger-restore']);
  expect(first['ledger-key']!.startsWith(second['ledger-restore']!)).toBe(true);
  expect(second['ledger-key']).not.toBe(first['ledger-key']);
});

/** The workflow's `check` step: the action with the workflow's inputs, the config file given. */
const checkStep = (workspace: string, configFile: string, env: Record<string, string>) =>
  runAction({ ...(step('check').with as Record<string, string>), config: configFile }, workspace, env);

/** One of the workflow's own step scripts, in the workspace, with the Actions variables it reads. */
const runStep = (script: string, env: Record<string, string>) => runScript(script, env, env.GITHUB_WORKSPACE!);

describe.skipIf(!existsSync(join(projectRoot, 'dist', 'cli.js')))(
  'the workflow steps, run locally against the emulator',
  () => {
    let emulator: Emulator;
    beforeAll(async () => {
      emulator = await createEmulator({ port: 0, tokenTtlS: 2 });
    });
    afterAll(async () => {
      await emulator?.close();
    });

    it("a second scheduled run proves the first run's token expired (token.ledger passes)", async () => {
      const statuses: Array<Record<string, string>> = [];
      // One workspace for both runs: it stands for the ledger the cache carries from run to run.
      const workspace = await mkdtemp(join(tmpdir(), 'ces-ci-workspace-'));
      for (const run of [1, 2]) {
        const temp = await mkdtemp(join(tmpdir(), 'ces-ci-runner-'));
        const summary = join(temp, 'step-summary.md');
        const output = join(temp, 'output');
        await writeFile(output, '');
        const actions = {
          GITHUB_WORKSPACE: workspace,
          RUNNER_TEMP: temp,
          GITHUB_STEP_SUMMARY: summary,
          GITHUB_OUTPUT: output,
        };

        const config = await runStep(step('config').run!, {
          ...actions,
          CES_SANDBOX_BASE_URL: emulator.url,
          CES_SANDBOX_CA_PEM: emulator.caPem,
          CES_SANDBOX_TOKEN_LIFETIME_S: '2',
        });
        expect(config.code, config.out).toBe(0);
        const configFile = /^file=(.*)$/m.exec(await readFile(output, 'utf8'))?.[1];
        expect(configFile).toBe(join(temp, 'ces-harness.yaml'));

        const check = await checkStep(workspace, configFile!, {
          ...actions,
          CES_SANDBOX_CLIENT_ID: emulator.credentials.clientId,
          CES_SANDBOX_CLIENT_SECRET: emulator.credentials.clientSecret,
        });
        expect(check.code, check.out).toBe(0);
        expect(check.out).not.toContain(emulator.credentials.clientSecret);
        const report = JSON.parse(await readFile(join(workspace, 'reports', 'ci', 'report.json'), 'utf8')) as {
          checks: Array<{ id: string; status: string; message: string }>;
        };
        expect(await readFile(summary, 'utf8')).toBe(
          await readFile(join(workspace, 'reports', 'ci', 'report.md'), 'utf8'),
        );
        expect(existsSync(join(workspace, 'reports', 'ci', 'junit.xml'))).toBe(true);
        expect(existsSync(join(workspace, '.ces-harness', 'token-ledger.json'))).toBe(true);
        statuses.push(Object.fromEntries(report.checks.map((c) => [c.id, `${c.status}: ${c.message}`])));
        // The tokens of run 1 must outlive their 2 s (and the 2 s clock tolerance) before run 2.
        if (run === 1) await new Promise((r) => setTimeout(r, 5_000));
      }
      expect(statuses[0]!['token.ledger']).toMatch(/^skip: /);
      expect(statuses[1]!['token.ledger']).toMatch(/^pass: /);
    }, 180_000);
  },
);

/**
 * A TCP relay on a port of its own to whichever emulator is current: the base URL (and so the
 * history's target) stays the same while a test swaps the service behind it for a changed one.
 */
async function relay(): Promise<{ url: string; to(emulator: Emulator): void; close(): Promise<void> }> {
  let upstream = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const server = connect(upstream, '127.0.0.1');
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (client.destroy(), server.destroy()));
    }
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    to: (emulator) => void (upstream = Number(new URL(emulator.url).port)),
    close: () => new Promise<void>((resolve) => (sockets.forEach((s) => s.destroy()), server.close(() => resolve()))),
  };
}

describe.skipIf(!existsSync(join(projectRoot, 'dist', 'cli.js')))(
  'the workflow steps remember: unchanged runs report nothing, each injected change exactly itself',
  () => {
    // The service as it stands: one client, one certificate, business endpoints ~10 ms slow.
    const credentials = { clientId: 'ces-sandbox-history', clientSecret: 'history-test-secret-5f0c1e9a7b' };
    const certificates = generateCertificates('127.0.0.1');
    const BASE_LATENCY_MS = 10;
    const UNCHANGED_RUNS = 6;
    const steady: EmulatorOptions = {
      port: 0,
      credentials: [credentials],
      certificates,
      businessLatencyMs: BASE_LATENCY_MS,
    };
    const injected: Record<
      string,
      { options: EmulatorOptions; expected: Array<Pick<Change, 'kind' | 'subject' | 'name'>> }
    > = {
      'a fault switched on (wrong-token-type)': {
        options: { ...steady, faults: ['wrong-token-type'] },
        expected: [
          { kind: 'check', subject: 'token.type-bearer', name: 'status' },
          { kind: 'fact', subject: 'token.type-bearer', name: 'token_type' },
        ],
      },
      'the rate limit halved': {
        options: { ...steady, rateLimit: { rps: 25, burst: 25 } },
        expected: [{ kind: 'rate_limit', subject: 'ratelimit.limit-enforced', name: 'accepted_before_limit' }],
      },
      'a 10× slower business endpoint': {
        options: { ...steady, businessLatencyMs: BASE_LATENCY_MS * 10 },
        expected: [{ kind: 'latency', subject: 'business.valid-token-accepted', name: 'latency_ms' }],
      },
      'a certificate from a different CA': {
        options: { ...steady, certificates: generateCertificates('127.0.0.1') },
        expected: [{ kind: 'fact', subject: 'tls.certificate-valid', name: 'issuer' }],
      },
    };

    let front: Awaited<ReturnType<typeof relay>>;
    const started: Emulator[] = [];
    const start = async (options: EmulatorOptions) => {
      const e = await createEmulator(options);
      started.push(e);
      front.to(e);
      return e;
    };
    beforeAll(async () => {
      front = await relay();
    });
    afterAll(async () => {
      await Promise.all(started.map((e) => e.close()));
      await front?.close();
    });

    interface Since {
      history: string;
      changes: Change[];
      not_compared?: NotCompared[];
      outcome: string;
    }

    /** The config, check and summary steps once, in a workspace that stands for the Actions cache. */
    async function scheduledRun(
      workspace: string,
      caPem: string,
    ): Promise<{ code: number | null; since: Since; summary: string; out: string }> {
      const temp = await mkdtemp(join(tmpdir(), 'ces-ci-runner-'));
      const output = join(temp, 'output');
      await writeFile(output, '');
      const actions = {
        GITHUB_WORKSPACE: workspace,
        RUNNER_TEMP: temp,
        GITHUB_STEP_SUMMARY: join(temp, 'step-summary.md'),
        GITHUB_OUTPUT: output,
      };
      expect(
        (await runStep(step('config').run!, { ...actions, CES_SANDBOX_BASE_URL: front.url, CES_SANDBOX_CA_PEM: caPem }))
          .code,
      ).toBe(0);
      const configFile = /^file=(.*)$/m.exec(await readFile(output, 'utf8'))![1]!;
      const check = await checkStep(workspace, configFile, {
        ...actions,
        CES_SANDBOX_CLIENT_ID: credentials.clientId,
        CES_SANDBOX_CLIENT_SECRET: credentials.clientSecret,
      });
      const report = JSON.parse(await readFile(join(workspace, 'reports', 'ci', 'report.json'), 'utf8')) as {
        since_last_run: Since;
      };
      return {
        code: check.code,
        since: report.since_last_run,
        summary: await readFile(actions.GITHUB_STEP_SUMMARY, 'utf8'),
        out: check.out,
      };
    }

    it('reports no change over unchanged runs, then exactly the one injected', async () => {
      const workspace = await mkdtemp(join(tmpdir(), 'ces-ci-workspace-'));
      const history = join(workspace, '.ces-harness', 'history.jsonl');
      await start(steady);
      for (let run = 1; run <= UNCHANGED_RUNS; run++) {
        const r = await scheduledRun(workspace, certificates.caPem);
        expect(r.code, r.out).toBe(0);
        expect(r.since.history, `run ${run}`).toBe(run === 1 ? 'none' : 'compared');
        expect(r.since.changes, `run ${run}: ${r.out}`).toEqual([]);
        // The job summary leads with what changed: right under the verdict's title line.
        expect(r.summary.split('\n### ')[1], `run ${run}`).toMatch(/^Since the last run\n/);
      }
      expect((await readFile(history, 'utf8')).trim().split('\n')).toHaveLength(UNCHANGED_RUNS);
      expect(await readFile(history, 'utf8')).not.toContain(credentials.clientSecret);
      const baseline = join(workspace, 'baseline.jsonl');
      await copyFile(history, baseline);

      for (const [what, { options, expected }] of Object.entries(injected)) {
        // Every injection is judged against the same unchanged runs, as the day it ships would be.
        await copyFile(baseline, history);
        // A restarted emulator has forgotten the tokens the ledger holds; the sandbox would not.
        await rm(join(workspace, '.ces-harness', 'token-ledger.json'), { force: true });
        const changed = await start(options);
        const r = await scheduledRun(workspace, changed.caPem);
        const found = r.since.changes
          .filter((c) => c.action !== 'info')
          .map(({ kind, subject, name }) => ({ kind, subject, name }));
        // A figure the history could not judge (a burst offered at a rate none of the stored runs
        // was) says so: the message carries it, so such a failure is not read as a missed change.
        const said = [...r.since.changes.map((c) => c.text), ...(r.since.not_compared ?? []).map((n) => n.text)];
        expect(found, `${what}: ${said.join('; ')}`).toEqual(expected);
        expect(r.since.outcome, what).toBe('warn');
        for (const c of r.since.changes) expect(r.summary, what).toContain(mdInline(c.text));
        await changed.close();
      }
    }, 400_000);
  },
);
