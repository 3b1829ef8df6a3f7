// The closing lines say what a run did: a checks count only where checks ran, and the `client`
// target with the port its emulator listened on.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closingCount } from '../../src/cli/closing-count.js';
import { servedAt } from '../../src/client/served-at.js';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Report } from '../../src/report/model.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { loadFixture } from '../report/helpers.js';

const COUNT = /\d+ passed, \d+ failed, \d+ warned, \d+ skipped, \d+ errored/;

describe('closingCount', () => {
  const full = loadFixture('pass');
  const only = (parts: Partial<Report>): Report => ({ ...full, checks: [], load: null, rate_limit: null, ...parts });
  it.each([
    { name: 'check', report: () => ({ ...full, load: null, rate_limit: null }), line: COUNT },
    {
      name: 'load',
      report: () => only({ load: full.load }),
      line: new RegExp(`^${full.load!.scenarios.length} k6 scenarios run$`),
    },
    { name: 'ratelimit, sized', report: () => only({ rate_limit: full.rate_limit }), line: /^rate limit sized$/ },
    // A policy no k6 round ran for (a partial estimate: nginx's 1r/s with no burst, probed 60 s) is sized, not proven.
    {
      name: 'ratelimit, sized with no proof run',
      report: () =>
        only({
          rate_limit: { ...full.rate_limit!, proof: null, proof_verdict: 'not run', proof_horizon: undefined },
        }),
      line: /^rate limit sized, not proven$/,
    },
    {
      name: 'ratelimit, not proven',
      report: () => only({ rate_limit: { ...full.rate_limit!, recommendation: null, proof_verdict: 'not proven' } }),
      line: /^rate limit sizing not proven$/,
    },
    {
      name: 'ratelimit, no recommendation',
      report: () => only({ rate_limit: { ...full.rate_limit!, recommendation: null } }),
      line: /^rate limit probed, not sized$/,
    },
    {
      name: 'ratelimit, no request',
      report: () => only({ rate_limit: { ...full.rate_limit!, recommendation: null, requests_sent: 0 } }),
      line: /^rate limit not probed$/,
    },
    { name: 'nothing ran', report: () => only({}), line: /^nothing was tested$/ },
    { name: 'run', report: () => full, line: /passed, .* errored; \d+ k6 scenarios? run; rate limit sized$/ },
  ])('$name → $line', ({ report, line }) => {
    expect(closingCount(report())).toMatch(line);
  });
});

describe('servedAt', () => {
  it('names every emulator with its port, once each', () => {
    expect(
      servedAt([
        { baseUrl: 'https://127.0.0.1:4001' },
        { baseUrl: 'https://127.0.0.1:4002' },
        { baseUrl: 'https://127.0.0.1:4001' },
      ]),
    ).toBe('https://127.0.0.1:4001, https://127.0.0.1:4002');
    expect(servedAt([])).toMatch(/no scenario ran/);
  });
});

describe('the closing lines through the CLI', () => {
  let emulator: Emulator;
  let cwd: string;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 86_400 });
    cwd = mkdtempSync(join(tmpdir(), 'ces-closing-'));
  });
  afterAll(() => emulator.close());

  it('ratelimit prints no checks count', async () => {
    // A refused secret ends the probe at once: the quickest ratelimit run there is.
    const res = await runCliInProcess(
      ['ratelimit', '--base-url', emulator.url, '--ca', emulator.caFile, '--report-dir', join(cwd, 'rl')],
      {
        cwd,
        env: { CES_CLIENT_ID: emulator.credentials.clientId, CES_CLIENT_SECRET: 'wrong-secret-for-the-probe' },
        timeoutMs: 90_000,
      },
    );
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).not.toMatch(COUNT);
    expect(res.stdout).toMatch(/^rate limit not probed$/m);
    expect(res.stdout).toMatch(/^not tested \(rate_limit\): .*returned 401/m);
  });

  // Spawned: the client program inherits the process's environment. A 4 s time limit gives it
  // CES_RUN_SECONDS 2, not the usual 5: the closing line is the matter here, not the scenario's length.
  it('client names its target with the port', { timeout: 90_000 }, async () => {
    const dir = join(cwd, 'client');
    const res = await runCli(
      [
        'client',
        '--scenario',
        'steady',
        '--time-limit',
        '4',
        '--report-dir',
        dir,
        '--',
        process.execPath,
        resolve('test/fixtures/clients/well-behaved.mjs'),
      ],
      { cwd, timeoutMs: 80_000 },
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^PASS {2}client https:\/\/127\.0\.0\.1:\d+ \(built-in emulator\)$/m);
  });
});
