// Execution segments: the k6 arguments, the summary merge (pure), and the real k6 run split in two
// against the emulator, whose merged request count must equal one process's exactly.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { ScenarioInputs } from '../../src/k6/contract.js';
import { runK6Bundle } from '../../src/k6/scenarios.js';
import { mergeK6Summaries, segmentArgs } from '../../src/k6/segments.js';
import { realK6 } from './support.js';

const k6 = await realK6();

describe('segmentArgs', () => {
  it.each([
    [0, 2, '0:1/2', '0,1/2,1'],
    [1, 2, '1/2:1', '0,1/2,1'],
    [1, 3, '1/3:2/3', '0,1/3,2/3,1'],
    [0, 1, '0:1', '0,1'],
  ])('segment %i of %i is %s in %s', (i, n, segment, sequence) => {
    expect(segmentArgs(i, n)).toEqual(['--execution-segment', segment, '--execution-segment-sequence', sequence]);
  });

  it('refuses a segment that does not exist', () => {
    expect(() => segmentArgs(2, 2)).toThrow(RangeError);
    expect(() => segmentArgs(0, 0)).toThrow(RangeError);
  });
});

describe('mergeK6Summaries', () => {
  const part = (count: number, p95: number, ok: boolean, passes: number) => ({
    metrics: {
      http_reqs: { type: 'counter', values: { count, rate: count / 2 } },
      http_req_duration: {
        type: 'trend',
        values: { avg: p95 / 2, min: 1, med: p95 / 2, max: p95 + 1, 'p(95)': p95, count },
        thresholds: { 'p(95)<500': { ok } },
      },
      checks: { type: 'rate', values: { passes, fails: 1, rate: passes / (passes + 1) } },
      vus_max: { type: 'gauge', values: { value: 2, min: 2, max: 2 } },
    },
    state: { testRunDurationMs: 2000 },
    ces: { scenario: 's', run_id: 'r', notes: ['n'], extra: { lost: 1, cost_p50_ms: 3 } },
  });

  it('sums counts and rates, weighs averages, bounds percentiles by the largest, and fails a threshold failed anywhere', () => {
    const merged = mergeK6Summaries([part(10, 100, true, 9), part(30, 300, false, 29)])!;
    expect(merged.metrics.http_reqs!.values).toEqual({ count: 40, rate: 20 });
    const d = merged.metrics.http_req_duration!;
    expect(d.values).toMatchObject({ count: 40, min: 1, max: 301, 'p(95)': 300, avg: (50 * 10 + 150 * 30) / 40 });
    expect(d.thresholds).toEqual({ 'p(95)<500': { ok: false } });
    expect(merged.metrics.checks!.values).toEqual({ passes: 38, fails: 2, rate: 38 / 40 });
    expect(merged.metrics.vus_max!.values.value).toBe(4);
    expect(merged.ces).toMatchObject({ run_id: 'r', notes: ['n'], extra: { lost: 2, cost_p50_ms: 3 } });
  });

  it('is undefined when a process wrote no summary: a partial sum is not the run', () => {
    expect(mergeK6Summaries([part(1, 1, true, 1), undefined])).toBeUndefined();
    expect(mergeK6Summaries([])).toBeUndefined();
  });
});

describe.skipIf(k6 === undefined)('a bundle split in execution segments (real k6)', () => {
  let emulator: Emulator;
  let work: string;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 } });
    work = await mkdtemp(join(tmpdir(), 'ces-segments-'));
  });
  afterAll(async () => {
    await emulator?.close();
  });

  const inputs = (): ScenarioInputs => ({
    baseUrl: emulator.url,
    clientId: emulator.credentials.clientId,
    clientSecret: emulator.credentials.clientSecret,
    tokenLifetimeS: 86_400,
    clockToleranceS: 2,
    rate: 10,
    durationS: 5,
    vus: 4,
    runId: 'segments-test',
  });

  it('--segments 2 merges to exactly the request count of one process', async () => {
    const opts = (segments: number) => ({
      k6Path: k6!.path,
      bundleDir: resolve('test/k6/fixtures/segments'),
      workDir: join(work, String(segments)),
      inputs: inputs(),
      caFile: emulator.caFile,
      timeoutMs: 60_000,
      segments,
    });
    const [single, split] = await Promise.all([runK6Bundle('counted', opts(1)), runK6Bundle('counted', opts(2))]);
    expect(single.error).toBeUndefined();
    expect(split.error).toBeUndefined();
    expect(single.requests).toBe(40);
    expect(split.requests).toBe(single.requests);
    expect(split.error_rate).toBe(0);
    expect(split.thresholds).toEqual([{ metric: 'http_req_failed', expression: 'rate<0.01', ok: true }]);
    // Both halves ran at once: the merged rate is the sum of theirs, of the same order as one
    // process's (loopback timing is noise, so only the order of magnitude is asserted).
    expect(split.rate_per_s).toBeGreaterThan(single.rate_per_s / 4);
  }, 90_000);
});

describe('segmentOutputs', () => {
  it('gives each segment process its own output file, and leaves network outputs alone', async () => {
    const { segmentOutputs } = await import('../../src/k6/scenarios.js');
    expect(
      segmentOutputs(['--out', 'json=/r/points.json', '--out', 'experimental-prometheus-rw', '--out', 'csv=out'], 1, 2),
    ).toEqual([
      '--out',
      'json=/r/points.segment-2-of-2.json',
      '--out',
      'experimental-prometheus-rw',
      '--out',
      'csv=out.segment-2-of-2',
    ]);
  });
});
