// The habits a command-line user brings: -h on every command, -V, the fault and scenario names in
// --help, a list of the check ids (also as JSON), and the everyday load settings as flags that win
// over the config file the way every other flag does.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { COMMANDS } from '../../src/cli/flags.js';
import { FAULTS } from '../../src/emulator/faults/index.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { VERSION } from '../../src/version.js';
import type { Report } from '../../src/report/model.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { realK6 } from '../k6/support.js';

const k6 = await realK6();

describe('help and version on every command', () => {
  it.each(Object.keys(COMMANDS))(
    '%s: -h and --help print its usage and exit 0; -V prints the version',
    async (command) => {
      const short = await runCliInProcess([command, '-h']);
      expect(short.code, short.stderr).toBe(0);
      expect(short.stdout).toContain(`Usage: ces-harness ${command} [flags]`);
      expect(short.stdout).toContain('-h, --help');
      expect((await runCliInProcess([command, '--help'])).stdout).toBe(short.stdout);
      const version = await runCliInProcess([command, '-V']);
      expect(version).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    },
  );

  it('-V and --version alone print the version', async () => {
    for (const flag of ['-V', '--version'])
      expect(await runCliInProcess([flag])).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('run --help lists every --fault name, load --help every scenario', async () => {
    const run = (await runCliInProcess(['run', '--help'])).stdout;
    const listed = run.slice(run.indexOf('--fault takes one of:')).split(/[\s,]+/);
    for (const f of FAULTS) expect(listed).toContain(f.name);
    expect((await runCliInProcess(['load', '-h'])).stdout).toMatch(
      /--scenario takes one of:\n {2}token-lifecycle, tls, rate-limit, throughput/,
    );
    expect((await runCliInProcess(['client', '-h'])).stdout).toMatch(
      /--scenario takes one of:\n {2}steady, short-token-lifetime, rate-limit-storm, rate-limit-no-retry-after, slow-business\n?$/,
    );
  });
});

describe('ces-harness checks', () => {
  it('lists every check id, level and spec section, one per line', async () => {
    const res = await runCliInProcess(['checks']);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    for (const c of CHECKS)
      expect(lines.some((l) => l.startsWith(`${c.id} `) && l.includes(` ${c.level} `))).toBe(true);
    expect(res.stdout).toContain(`${CHECKS.length} checks.`);
  });

  it('--json is one array a script can read, in catalogue order', async () => {
    const res = await runCliInProcess(['checks', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const list = JSON.parse(res.stdout) as Array<{
      id: string;
      group: string;
      level: string;
      spec: string;
      title: string;
    }>;
    expect(list.map((c) => c.id)).toEqual(CHECKS.map((c) => c.id));
    expect(list.find((c) => c.id === 'tls.legacy-versions-refused')).toMatchObject({
      group: 'tls',
      level: 'must',
      spec: '§5.8',
    });
  });

  it('an unknown flag is a usage error (exit 2) naming it', async () => {
    const res = await runCliInProcess(['checks', '--jsn']);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe('ces-harness: unknown flag --jsn for `ces-harness checks` (ces-harness checks --help)\n');
  });
});

describe('load, rate-limit and timeout settings as flags: flag > config > default', () => {
  const CONFIG = `
environments:
  sandbox: { base_url: https://sandbox.example.test, client_id: id, client_secret: "\${S}" }
rate_limit: { max_rps: 30 }
request_timeout_s: 4
load: { rate: 7, duration_s: 12, vus: 3 }
`;
  const dir = (yaml?: string) => {
    const d = mkdtempSync(join(tmpdir(), 'ces-habits-'));
    if (yaml) writeFileSync(join(d, 'ces-harness.yaml'), yaml);
    return d;
  };

  it('defaults without a config', async () => {
    const s = await resolveSettings({}, {}, dir());
    expect([s.load.rate, s.load.durationS, s.load.vus, s.rateLimit.maxRps, s.requestTimeoutS]).toEqual([
      20,
      undefined,
      5,
      200,
      10,
    ]);
  });

  it('the config over the defaults; every target carries the request timeout', async () => {
    const s = await resolveSettings({}, { S: 'secret-value' }, dir(CONFIG));
    expect([
      s.load.rate,
      s.load.durationS,
      s.load.vus,
      s.rateLimit.maxRps,
      s.requestTimeoutS,
      s.target?.requestTimeoutS,
    ]).toEqual([7, 12, 3, 30, 4, 4]);
  });

  it('the flags over the config', async () => {
    const s = await resolveSettings(
      { rate: 9, duration: 2, vus: 1, 'max-rps': 40, 'request-timeout': 1.5 },
      { S: 'secret-value' },
      dir(CONFIG),
    );
    expect([
      s.load.rate,
      s.load.durationS,
      s.load.vus,
      s.rateLimit.maxRps,
      s.requestTimeoutS,
      s.target?.requestTimeoutS,
    ]).toEqual([9, 2, 1, 40, 1.5, 1.5]);
    // The rate-limit scenario's spike follows the probe's ceiling, as it does from the config.
    expect(s.load.overLimitRate).toBe(40);
  });

  it.each([
    [
      ['load', '--rate', '0'],
      /^ces-harness: --rate must be a number of requests per second from 0.1 to 100000, got 0$/,
    ],
    [['load', '--vus', '2.5'], /^ces-harness: --vus must be a whole number of virtual users from 1 to 10000, got 2.5$/],
    [
      ['check', '--request-timeout', '0.1'],
      /^ces-harness: --request-timeout must be a number of seconds from 0.5 to 600, got 0.1$/,
    ],
    [['check', '--duration', '5'], /^ces-harness: --duration does not apply to `ces-harness check`/],
  ])('%j: exit 2, one line', async (argv, line) => {
    const res = await runCliInProcess(argv);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(line);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('request_timeout_s out of range in the config: exit 2 naming the key, before any request', async () => {
    const cwd = dir(CONFIG.replace('request_timeout_s: 4', 'request_timeout_s: 9000'));
    const res = await runCliInProcess(['check'], { cwd, env: { S: 'secret-value' } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/request_timeout_s.*must be a number of seconds from 0.5 to 600, got 9000/);
  });
});

// Spawned: k6 is found from, and started with, the process's environment (K6_BINARY here).
describe.skipIf(!k6)('load flags reach k6 (real k6, built-in emulator)', () => {
  it('--duration 2 --rate 2 --vus 1: a short, light throughput run', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-habits-load-'));
    const dir = join(cwd, 'report');
    const res = await runCli(
      ['load', '--scenario', 'throughput', '--duration', '2', '--rate', '2', '--vus', '1', '--report-dir', dir],
      { cwd, env: { K6_BINARY: k6!.path }, timeoutMs: 120_000 },
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stderr).toMatch(/throughput \(2 s\)/);
    const scenario = (JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report).load!.scenarios[0]!;
    // 2 s at 2 arrivals/s: a handful of calls, where the defaults (10 s at 20/s) make hundreds.
    expect(scenario.requests).toBeGreaterThan(0);
    expect(scenario.requests).toBeLessThan(60);
  }, 150_000);
});
