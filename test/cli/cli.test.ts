// The CLI as users and their CI meet it: exit codes, one-line errors, the report folder.

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Report } from '../../src/report/model.js';
import { virtualClock } from '../../src/time/clock.js';
import { runCli, runCliInProcess, type CliResult } from '../helpers/cli.js';
import { expectValidReport } from '../report/schema.js';

const work = () => mkdtempSync(join(tmpdir(), 'ces-cli-'));

// Side by side: the spawned run waits on its process (and token.same-before-expiry's 1.1 s), the two
// in-process ones compute on virtual clocks of their own.
describe.concurrent('ces-harness check against the built-in emulator', () => {
  // Spawned: the built bin as a user starts it (its emulator in a worker thread, the report folder),
  // without the checks that wait on real time. The whole catalogue through the bin, a real expiry
  // waited out, is check-saturated.test.ts's run; in-process on a virtual clock it is the next test.
  it('exits 0 and writes the four report files when the emulator is conformant', async () => {
    const dir = join(work(), 'report');
    const res = await runCli(['check', '--skip', 'ratelimit.*', '--expiry-wait', '0', '--report-dir', dir], {
      cwd: work(),
    });
    expectConformantRun(res, dir);
    expect(res.stderr).toContain('no target configured');
  });

  it('passes every check, the expiry and the rate limit included, on a virtual clock', async () => {
    const dir = join(work(), 'report');
    const res = await runCliInProcess(['check', '--report-dir', dir], { cwd: work(), clock: virtualClock() });
    const report = expectConformantRun(res, dir);
    // Judged, not skipped for lack of time: the expiry waited out, the limit met and recovered from.
    for (const id of [
      'token.valid-until-expiry',
      'token.new-after-expiry',
      'ratelimit.limit-enforced',
      'ratelimit.recovers',
    ])
      expect(report.checks.find((c: { id: string }) => c.id === id)?.status, id).toBe('pass');
  });

  it('exits 1 when the emulator breaks a rule (--fault token-rotates)', async () => {
    const dir = join(work(), 'report');
    const res = await runCliInProcess(
      ['check', '--fault', 'token-rotates', '--skip', 'ratelimit.*', '--report-dir', dir],
      { cwd: work(), clock: virtualClock() },
    );
    expect(res.code).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(report.verdict).toBe('fail');
    expectValidReport(report);
    expect(report.checks.find((c: { id: string }) => c.id === 'token.same-before-expiry').status).toBe('fail');
  });
});

/** Exit 0, the four report files, a valid report of a pass against the emulator; the report. */
function expectConformantRun(res: CliResult, dir: string): Report {
  expect(res.code, res.stdout + res.stderr).toBe(0);
  expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md']);
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
  expect(report.verdict).toBe('pass');
  expectValidReport(report);
  expect(report.summary.failed).toBe(0);
  expect(report.target.emulated).toBe(true);
  expect(res.stdout).toMatch(/^PASS /m);
  return report;
}

describe('user errors: one line on stderr, the documented exit code', () => {
  const cases: Array<{
    name: string;
    args: string[];
    env?: Record<string, string>;
    config?: string;
    code: number;
    line: RegExp;
  }> = [
    { name: 'unknown flag', args: ['check', '--verbose'], code: 2, line: /unknown flag --verbose/ },
    { name: 'unknown command', args: ['inspect'], code: 2, line: /unknown command "inspect"/ },
    {
      name: 'bad number',
      args: ['check', '--expiry-wait', 'ten'],
      code: 2,
      line: /--expiry-wait must be a whole number of seconds from 0 to 172800, got ten/,
    },
    { name: 'unknown check', args: ['check', '--only', 'token.nope'], code: 2, line: /unknown check token\.nope/ },
    { name: 'unknown fault', args: ['check', '--fault', 'melt'], code: 2, line: /unknown fault "melt"/ },
    { name: 'bad YAML', args: ['check'], config: 'environments: [oops', code: 2, line: /ces-harness\.yaml.*line \d+/ },
    { name: 'unknown key', args: ['check'], config: 'targett: sandbox\n', code: 2, line: /unknown key targett/ },
    // An empty config is not "nothing configured": falling back to the emulator would PASS untested.
    {
      name: 'empty config',
      args: ['check'],
      config: '',
      code: 2,
      line: /ces-harness\.yaml is empty; describe the target under environments:/,
    },
    {
      name: 'config of comments only',
      args: ['check'],
      config: '# sandbox: later\n',
      code: 2,
      line: /ces-harness\.yaml is empty/,
    },
    {
      name: 'config without an environment',
      args: ['check'],
      config: 'expect:\n  token_lifetime_s: 60\n',
      code: 2,
      line: /has no environment to test \(no environments: entry named "sandbox"\)/,
    },
    {
      name: 'unset ${VAR}',
      args: ['check'],
      config:
        'environments:\n  sandbox:\n    base_url: https://127.0.0.1:1\n    client_id: ${SB_ID}\n    client_secret: ${SB_SECRET}\n',
      env: { SB_ID: 'x' },
      code: 2,
      line: /environments\.sandbox\.client_secret refers to \$\{SB_SECRET\}, which is not set/,
    },
    {
      name: 'missing credentials',
      args: ['check', '--base-url', 'https://127.0.0.1:1'],
      code: 2,
      line: /export CES_CLIENT_ID and CES_CLIENT_SECRET/,
    },
    {
      name: 'unknown environment',
      args: ['check', '--env', 'staging'],
      config: 'environments:\n  sandbox:\n    base_url: https://127.0.0.1:1\n    client_id: a\n    client_secret: b\n',
      code: 2,
      line: /environment "staging" is not in/,
    },
    {
      name: 'unreachable target',
      args: ['check', '--base-url', 'https://127.0.0.1:1'],
      env: { CES_CLIENT_ID: 'a', CES_CLIENT_SECRET: 'b' },
      code: 3,
      line: /cannot reach https:\/\/127\.0\.0\.1:1 \(ECONNREFUSED/,
    },
  ];

  it.each(cases)('$name → exit $code', async ({ args, env, config, code, line }) => {
    const cwd = work();
    if (config !== undefined) writeFileSync(join(cwd, 'ces-harness.yaml'), config);
    const res = await runCliInProcess(args, { cwd, ...(env ? { env } : {}) });
    expect(res.code).toBe(code);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ces-harness: /);
    expect(lines[0]).toMatch(line);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('against a served emulator', () => {
  let emulator: Emulator;
  // The run and the emulator on one virtual clock: the rate-limit checks' waits pass in an instant.
  const clock = virtualClock();
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 86_400, now: clock.now });
  });
  afterAll(async () => emulator.close());

  it('an untrusted certificate is exit 3 and says to pass --ca', async () => {
    const res = await runCliInProcess(['check', '--base-url', emulator.url], {
      cwd: work(),
      env: { CES_CLIENT_ID: emulator.credentials.clientId, CES_CLIENT_SECRET: emulator.credentials.clientSecret },
    });
    expect(res.code).toBe(3);
    expect(res.stderr).toMatch(
      /^ces-harness: the certificate of .* is issued by .*, which this machine does not trust .*pass --ca FILE/,
    );
  });

  it('never writes the client secret or a whole token to a report or the terminal', async () => {
    const cwd = work();
    const dir = join(cwd, 'report');
    const env = { CES_CLIENT_ID: emulator.credentials.clientId, CES_CLIENT_SECRET: emulator.credentials.clientSecret };
    const res = await runCliInProcess(
      [
        'check',
        '--base-url',
        emulator.url,
        '--ca',
        emulator.caFile,
        '--report-dir',
        dir,
        '--ledger',
        join(cwd, 'ledger.json'),
      ],
      { cwd, env, clock },
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    // The emulator hands out the same token until it expires (24 h here), so this is the run's token.
    const token = await fetchToken(emulator);
    const outputs = [res.stdout, res.stderr, ...readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'))];
    for (const text of outputs) {
      expect(text).not.toContain(emulator.credentials.clientSecret);
      expect(text).not.toContain(token);
    }
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toMatch(/tk_[0-9a-f]{8}/);
  });
});

async function fetchToken(emulator: Emulator): Promise<string> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: emulator.caPem } });
  const res = await request(`${emulator.url}/tokens`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      token: { client_id: emulator.credentials.clientId, client_secret: emulator.credentials.clientSecret },
    }),
  });
  const body = (await res.body.json()) as { token: string };
  await dispatcher.close();
  return body.token;
}
