// k6's own output settings reach k6, and nothing else of the harness's environment does: a real
// k6 writes InfluxDB v1 line protocol to a receiver on loopback, configured only by K6_INFLUXDB_*,
// and its __ENV (everything the process was given) holds no planted secret.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inheritedOutputArgs, K6_OUTPUT_SETTINGS, scrubbedEnv } from '../../src/k6/k6-env.js';
import { runK6Bundle } from '../../src/k6/scenarios.js';
import { runScenario } from '../../src/k6/run.js';
import { realK6 } from './support.js';

const k6 = await realK6();

// No request to anything: k6's own metrics (iterations, iteration_duration…) are enough to write.
// handleSummary hands back the names and values k6 saw in its environment.
const SCRIPT = `
import { sleep } from 'k6';
export const options = { vus: 1, iterations: 3 };
export default function () { sleep(0.1); }
export function handleSummary() { return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({ env: __ENV }) }; }
`;

interface Received {
  url: string;
  authorization: string | undefined;
  body: string;
}

/** An InfluxDB v1 write endpoint on 127.0.0.1:0 that keeps what it is sent (at most 1000 requests). */
async function influxReceiver(): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (received.length < 1000)
        received.push({
          url: req.url ?? '',
          authorization: req.headers.authorization,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('which K6_* settings reach k6', () => {
  it.each([
    // K6_OUT reaches k6 as --out arguments instead (below).
    ['K6_OUT', false],
    ['K6_INFLUXDB_ADDR', true],
    ['K6_PROMETHEUS_RW_SERVER_URL', true],
    ['K6_PROMETHEUS_RW_PASSWORD', true],
    ['K6_STATSD_ADDR', true],
    ['K6_OTEL_EXPORTER_TYPE', true],
    ['K6_CSV_SAVE_INTERVAL', true],
    ['K6_WEB_DASHBOARD_EXPORT', true],
    ['K6_CLOUD_TOKEN', false],
    ['K6_CLOUD_PROJECT_ID', false],
    ['K6_VUS', false],
    ['K6_DURATION', false],
    ['K6_ADDRESS', false],
    ['K6_INFLUXDB', false],
  ])('%s → %s', (name, passes) => {
    expect(K6_OUTPUT_SETTINGS.test(name)).toBe(passes || name === 'K6_OUT');
    expect(name in scrubbedEnv({ [name]: 'x' })).toBe(passes);
  });

  it('turns an inherited K6_OUT into --out arguments, without a cloud output', () => {
    expect(inheritedOutputArgs({ K6_OUT: 'cloud,json=points.json, csv=c.csv' })).toEqual([
      '--out',
      'json=points.json',
      '--out',
      'csv=c.csv',
    ]);
    expect(inheritedOutputArgs({ K6_OUT: 'cloud' })).toEqual([]);
    expect(inheritedOutputArgs({})).toEqual([]);
  });
});

describe.skipIf(k6 === undefined)('K6_INFLUXDB_* to a real receiver (real k6)', () => {
  let receiver: Awaited<ReturnType<typeof influxReceiver>>;
  let dir: string;
  beforeAll(async () => {
    receiver = await influxReceiver();
    dir = await mkdtemp(join(tmpdir(), 'ces-k6-env-'));
    await writeFile(join(dir, 'script.js'), SCRIPT);
  });
  afterAll(async () => receiver?.close());

  it('metric lines arrive, with the credentials from the environment; no planted secret is in k6 environment', async () => {
    const run = await runScenario({
      k6Path: k6!.path,
      bundle: join(dir, 'script.js'),
      env: { CES_RUN_INPUT: 'the scenario input' },
      summaryFile: join(dir, 'summary.json'),
      extraArgs: ['--out', 'influxdb'],
      timeoutMs: 60_000,
      baseEnv: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        K6_INFLUXDB_ADDR: receiver.url,
        K6_INFLUXDB_USERNAME: 'metrics-user',
        K6_INFLUXDB_PASSWORD: 'metrics-password',
        K6_INFLUXDB_PUSH_INTERVAL: '100ms',
        // Planted: none of these may reach k6.
        K6_CLOUD_TOKEN: 'planted-cloud-token-6f1c',
        CES_SANDBOX_CLIENT_SECRET: 'planted-client-secret-9d2e',
        CES_CLIENT_SECRET: 'planted-client-secret-4a7b',
        K6_VUS: '50',
      },
    });
    expect(run.exitCode, run.stderrTail).toBe(0);

    const writes = receiver.received.filter((r) => r.url.startsWith('/write'));
    expect(writes.length, JSON.stringify(receiver.received.map((r) => r.url))).toBeGreaterThan(0);
    const lines = writes.flatMap((w) => w.body.split('\n')).filter(Boolean);
    // InfluxDB v1 line protocol: measurement,tags value=… timestamp.
    expect(lines.some((l) => /^iterations,[^ ]* value=1 \d+$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('iteration_duration,'))).toBe(true);
    expect(new Set(writes.map((w) => w.authorization))).toEqual(
      new Set([`Basic ${Buffer.from('metrics-user:metrics-password').toString('base64')}`]),
    );

    const env = (run.summary as { env: Record<string, string> }).env;
    expect(env['K6_INFLUXDB_ADDR']).toBe(receiver.url);
    expect(env['CES_RUN_INPUT']).toBe('the scenario input');
    for (const planted of ['K6_CLOUD_TOKEN', 'CES_SANDBOX_CLIENT_SECRET', 'CES_CLIENT_SECRET', 'K6_VUS'])
      expect(env).not.toHaveProperty(planted);
    expect(JSON.stringify(env)).not.toMatch(/planted-/);
    // K6_VUS=50 did not reach k6: the script's own 1 VU ran its 3 iterations.
    expect(lines.filter((l) => l.startsWith('iterations,'))).toHaveLength(3);
  }, 90_000);
});

describe.skipIf(k6 === undefined)("K6_OUT beside the harness's own outputs (real k6)", () => {
  it('each output of K6_OUT gets the points beside load.outputs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-k6-out-'));
    await writeFile(join(dir, 'script.js'), SCRIPT);
    await runK6Bundle('script', {
      k6Path: k6!.path,
      bundleDir: dir,
      workDir: dir,
      // The script reads none of them; the bundle runner passes them all.
      inputs: {
        baseUrl: 'https://127.0.0.1:1',
        clientId: 'id',
        clientSecret: 'secret',
        tokenLifetimeS: 60,
        clockToleranceS: 2,
        rate: 1,
        durationS: 1,
        vus: 1,
        runId: 'k6-out-test',
      },
      extraArgs: ['--out', `json=${join(dir, 'config.json')}`],
      timeoutMs: 60_000,
      baseEnv: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        K6_OUT: `cloud,json=${join(dir, 'env.json')},csv=${join(dir, 'env.csv')}`,
      },
    });
    const points = async (file: string) =>
      (await readFile(join(dir, file), 'utf8'))
        .split('\n')
        .filter((l) => l.includes('"type":"Point"') && l.includes('"metric":"iterations"'));
    expect(await points('env.json')).toHaveLength(3);
    expect(await points('config.json')).toHaveLength(3);
    expect(
      (await readFile(join(dir, 'env.csv'), 'utf8')).split('\n').filter((l) => l.startsWith('iterations,')),
    ).toHaveLength(3);
  }, 90_000);
});
