// runScenario's process handling, with a stand-in for k6 (a shell script), so timeouts, the
// environment and the summary hand-over are tested without minutes of load. The real k6 runs in
// scenarios.test.ts.

import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { goRuntimeEnv, K6_GOGC, scrubbedEnv, usableMemory } from '../../src/k6/k6-env.js';
import { K6_EXIT, runScenario, type RunScenarioResult } from '../../src/k6/run.js';
import { scenarioEnv } from '../../src/k6/contract.js';
import { runProblem } from '../../src/k6/scenarios.js';

let dir: string;
async function fake(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

const result = (over: Partial<RunScenarioResult>): RunScenarioResult => ({
  exitCode: 0,
  timedOut: false,
  aborted: false,
  summary: undefined,
  stdoutTail: '',
  stderrTail: '',
  durationMs: 1,
  ...over,
});

describe.skipIf(process.platform === 'win32')('runScenario', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ces-run-'));
  });

  it('passes the scenario env, drops inherited K6_* and CES_*, and reads back the summary', async () => {
    const k6 = await fake(
      'k6-summary',
      'echo "args: $*"; echo "vus=${K6_VUS:-unset} mine=$CES_BASE_URL other=${CES_STRAY:-unset}"; echo \'{"metrics":{}}\' > "$CES_SUMMARY_FILE"; exit 99',
    );
    const run = await runScenario({
      k6Path: k6,
      bundle: 'b.js',
      env: { CES_BASE_URL: 'https://x.test' },
      summaryFile: join(dir, 'nested', 'summary.json'),
      baseEnv: { PATH: process.env.PATH, K6_VUS: '999', CES_STRAY: 'from-the-shell' },
    });
    expect(run.exitCode).toBe(K6_EXIT.THRESHOLDS_FAILED);
    expect(run.summary).toEqual({ metrics: {} });
    expect(run.stdoutTail).toContain('args: run --quiet --no-usage-report --no-color b.js');
    expect(run.stdoutTail).toContain('vus=unset mine=https://x.test other=unset');
  });

  it("gives k6 the harness's GOGC and memory limit, or leaves the user's own", async () => {
    const k6 = await fake('k6-go', 'echo "gogc=${GOGC:-unset} limit=${GOMEMLIMIT:-unset}"');
    const go = (baseEnv: NodeJS.ProcessEnv) =>
      runScenario({ k6Path: k6, bundle: 'b.js', env: {}, summaryFile: join(dir, 'go.json'), baseEnv }).then(
        (r) => r.stdoutTail,
      );
    expect(await go({ PATH: process.env.PATH })).toMatch(new RegExp(`^gogc=${K6_GOGC} limit=\\d+MiB\n$`));
    expect(await go({ PATH: process.env.PATH, GOGC: '50' })).toBe('gogc=50 limit=unset\n');
    expect(await go({ PATH: process.env.PATH, GOMEMLIMIT: '1GiB' })).toBe('gogc=unset limit=1GiB\n');
  });

  it('never reports a summary left over from an earlier run', async () => {
    const summaryFile = join(dir, 'stale.json');
    await writeFile(summaryFile, '{"metrics":{}}');
    const run = await runScenario({
      k6Path: await fake('k6-nothing', 'exit 107'),
      bundle: 'b.js',
      env: {},
      summaryFile,
      baseEnv: {},
    });
    expect(run.exitCode).toBe(107);
    expect(run.summary).toBeUndefined();
  });

  it('stops a k6 that overruns its time with SIGTERM', async () => {
    const started = Date.now();
    const run = await runScenario({
      k6Path: await fake('k6-hang', 'exec sleep 30'),
      bundle: 'b.js',
      env: {},
      summaryFile: join(dir, 'h.json'),
      timeoutMs: 300,
      baseEnv: {},
    });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops a k6 whose memory passes its cap (an answer body without end), and says so', async () => {
    // A stand-in that grows by 20 MB every 20 ms, as k6 reading an endless body did (7 GB in 38 s).
    const grow = `const held=[];setInterval(()=>held.push(Buffer.alloc(20e6,1)),20);setTimeout(()=>{},30000)`;
    const started = Date.now();
    const run = await runScenario({
      k6Path: await fake('k6-grows', `exec "${process.execPath}" -e '${grow}'`),
      bundle: 'b.js',
      env: {},
      summaryFile: join(dir, 'm.json'),
      timeoutMs: 20_000,
      memoryCapBytes: 200 * 2 ** 20,
      baseEnv: {},
    });
    expect(run.memoryCappedAt).toBe(200 * 2 ** 20);
    expect(run.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(runProblem(run, 20_000)).toBe(
      'k6 stopped: its memory passed its cap of 200 MiB (k6 reads each answer whole: a body without end?)',
    );
  });

  it('shares the memory cap among the k6 processes running at once', async () => {
    const grow = `const held=[];setInterval(()=>held.push(Buffer.alloc(20e6,1)),20);setTimeout(()=>{},30000)`;
    const cap = 400 * 2 ** 20;
    const [grower, beside] = await Promise.all([
      runScenario({
        k6Path: await fake('k6-grows-beside', `exec "${process.execPath}" -e '${grow}'`),
        bundle: 'b.js',
        env: {},
        summaryFile: join(dir, 'm1.json'),
        timeoutMs: 20_000,
        memoryCapBytes: cap,
        baseEnv: {},
      }),
      runScenario({
        k6Path: await fake('k6-idle', 'exec sleep 2'),
        bundle: 'b.js',
        env: {},
        summaryFile: join(dir, 'm2.json'),
        timeoutMs: 20_000,
        memoryCapBytes: cap,
        baseEnv: {},
      }),
    ]);
    // Two at once: each may hold half of the 400 MiB.
    expect(grower.memoryCappedAt).toBe(cap / 2);
    expect(beside.memoryCappedAt).toBeUndefined();
    expect(beside.exitCode).toBe(0);
  });

  it('trusts an extra CA through SSL_CERT_FILE, on top of the system roots', async () => {
    const ca = join(dir, 'ca.pem');
    await writeFile(ca, '-----BEGIN CERTIFICATE-----\nEXTRA\n-----END CERTIFICATE-----\n');
    const system = join(dir, 'system.pem');
    await writeFile(system, '-----BEGIN CERTIFICATE-----\nSYSTEM\n-----END CERTIFICATE-----\n');
    const run = await runScenario({
      k6Path: await fake('k6-cat-ca', 'cat "$SSL_CERT_FILE"'),
      bundle: 'b.js',
      env: {},
      summaryFile: join(dir, 'c.json'),
      caFile: ca,
      baseEnv: { SSL_CERT_FILE: system },
    });
    expect(run.stdoutTail).toContain('SYSTEM');
    expect(run.stdoutTail).toContain('EXTRA');
  });

  it('redacts the client secret from what it hands back', async () => {
    const run = await runScenario({
      k6Path: await fake('k6-leak', 'echo "oops $CES_CLIENT_SECRET" >&2'),
      bundle: 'b.js',
      env: { CES_CLIENT_SECRET: 's3cr3t-value' },
      summaryFile: join(dir, 'l.json'),
      baseEnv: {},
    });
    expect(run.stderrTail).toBe('oops [redacted]\n');
  });
});

describe('helpers', () => {
  it('goRuntimeEnv caps k6 at a quarter of the memory, and never below 64 MiB', () => {
    expect(goRuntimeEnv({}, 8 * 1024 ** 3)).toEqual({ GOGC: K6_GOGC, GOMEMLIMIT: '2048MiB' });
    expect(goRuntimeEnv({}, 100 * 1024 ** 2)).toEqual({ GOGC: K6_GOGC, GOMEMLIMIT: '64MiB' });
    expect(goRuntimeEnv({ GOGC: 'off' }, 8 * 1024 ** 3)).toEqual({});
    // A container's limit, when there is one, is what k6 may use.
    expect(usableMemory(8e9, 1e9)).toBe(1e9);
    expect(usableMemory(8e9, 2 ** 64)).toBe(8e9);
    expect(usableMemory(8e9, 0)).toBe(8e9);
    expect(usableMemory(8e9, undefined)).toBe(8e9);
  });

  it('scrubbedEnv keeps the rest of the environment', () => {
    expect(scrubbedEnv({ PATH: '/bin', K6_VUS: '99', ces_x: '1', HTTPS_PROXY: 'p', SSL_CERT_DIR: '/d' })).toEqual({
      PATH: '/bin',
      HTTPS_PROXY: 'p',
      SSL_CERT_DIR: '/d',
    });
  });

  it('scenarioEnv names every input the scenarios read', () => {
    const env = scenarioEnv({
      baseUrl: 'https://x.test',
      clientId: 'id',
      clientSecret: 'secret',
      tokenLifetimeS: 86400,
      clockToleranceS: 2,
      rate: 5,
      durationS: 10,
      vus: 3,
      runId: 'r1',
      business: { evaluation: { method: 'POST', body: { a: 1 } }, ach_transactions: { method: 'POST', body: {} } },
      thresholds: { http_req_duration: ['p(95)<300'] },
      retryBudgetS: 4,
      rateLimitEndpoint: 'tokens.validate',
      validateMethod: 'POST',
    });
    expect(env).toEqual({
      CES_BASE_URL: 'https://x.test',
      CES_CLIENT_ID: 'id',
      CES_CLIENT_SECRET: 'secret',
      CES_TOKEN_LIFETIME_S: '86400',
      CES_CLOCK_TOLERANCE_S: '2',
      CES_RATE: '5',
      CES_DURATION_S: '10',
      CES_VUS: '3',
      CES_RUN_ID: 'r1',
      CES_BUSINESS_JSON:
        '{"evaluation":{"method":"POST","body":{"a":1}},"ach_transactions":{"method":"POST","body":{}}}',
      CES_THRESHOLDS_JSON: '{"http_req_duration":["p(95)<300"]}',
      CES_RETRY_BUDGET_S: '4',
      CES_RATE_LIMIT_ENDPOINT: 'tokens.validate',
      CES_VALIDATE_METHOD: 'POST',
    });
  });

  it('runProblem: thresholds failing is a result, anything else a crash naming the cause', () => {
    expect(runProblem(result({ exitCode: 0 }), 1000)).toBeUndefined();
    expect(runProblem(result({ exitCode: 99 }), 1000)).toBeUndefined();
    expect(runProblem(result({ exitCode: null, timedOut: true }), 90_000)).toBe('k6 did not finish within 90 s');
    // What k6 v2.2.0 printed for a scenario started without CES_BASE_URL.
    const stderr =
      'time="2026-11-22T00:23:46Z" level=error msg="Error: CES_BASE_URL is not set; ces-harness passes it to k6, or set it yourself when running the bundle by hand\\n\\tat required (file:///work/main/scenarios/lib/config.ts:58:29(15))\\n" hint="script exception" source=stacktrace\n';
    expect(runProblem(result({ exitCode: 107, stderrTail: stderr }), 1000)).toBe(
      'k6 crashed (exit 107: the script threw): Error: CES_BASE_URL is not set; ces-harness passes it to k6, or set it yourself when running the bundle by hand',
    );
  });
});
