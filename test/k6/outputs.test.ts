// k6 outputs from the config (load.outputs → --out): a JSON output's points carry the same run id
// as report.json's load section, so dashboards fed by an output join the harness's report.

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { projectRoot, realK6 } from './support.js';

const k6 = await realK6();

describe.skipIf(k6 === undefined || !existsSync(join(projectRoot, 'dist', 'cli.js')))(
  'load.outputs pass-through (real k6)',
  () => {
    let emulator: Emulator;
    beforeAll(async () => {
      emulator = await createEmulator({ port: 0 });
    });
    afterAll(async () => {
      await emulator?.close();
    });

    it('--out json=… from the config tags every point with report.json load.run_id', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ces-outputs-'));
      const points = join(dir, 'k6-points.json');
      await writeFile(join(dir, 'ca.pem'), emulator.caPem);
      await writeFile(
        join(dir, 'ces-harness.yaml'),
        [
          'environments:',
          '  sandbox:',
          `    base_url: ${emulator.url}`,
          '    client_id: ${CES_SANDBOX_CLIENT_ID}',
          '    client_secret: ${CES_SANDBOX_CLIENT_SECRET}',
          '    ca_file: ca.pem',
          'ledger: "off"',
          'load:',
          '  rate: 5',
          '  duration_s: 3',
          `  outputs: ["json=${points}"]`,
        ].join('\n'),
      );
      const result = await runCli(
        [
          'load',
          '--scenario',
          'throughput',
          '--config',
          join(dir, 'ces-harness.yaml'),
          '--report-dir',
          join(dir, 'report'),
        ],
        {
          env: {
            CES_SANDBOX_CLIENT_ID: emulator.credentials.clientId,
            CES_SANDBOX_CLIENT_SECRET: emulator.credentials.clientSecret,
            K6_BINARY: k6!.path,
          },
          timeoutMs: 120_000,
        },
      );
      expect(result.code, result.stderr + result.stdout).toBe(0);
      const report = JSON.parse(await readFile(join(dir, 'report', 'report.json'), 'utf8')) as {
        load: { run_id: string };
      };
      expect(report.load.run_id).toMatch(/^[0-9a-f-]{36}$/);
      const samples = (await readFile(points, 'utf8'))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { type: string; metric: string; data: { tags?: Record<string, string> } })
        .filter((p) => p.type === 'Point');
      expect(samples.filter((p) => p.metric === 'http_reqs').length).toBeGreaterThan(0);
      expect(new Set(samples.map((p) => p.data.tags?.run_id))).toEqual(new Set([report.load.run_id]));
    }, 150_000);
  },
);
