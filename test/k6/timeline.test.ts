// The per-second timeline of a load scenario, from k6's own samples (its JSON output): a real k6
// run against the emulator fills LoadScenarioResult.timeline, whose requests add up to the
// summary's count; and the reader of the samples, on files written here.

import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { runK6Bundle } from '../../src/k6/scenarios.js';
import { mergeTimelines, readTimeline, timelineOf } from '../../src/k6/timeline.js';
import { bundleScenarios, realK6 } from './support.js';

const k6 = await realK6();

const point = (metric: string, time: string, value: number) =>
  JSON.stringify({ metric, type: 'Point', data: { time, value, tags: { status: '200' } } });

describe('readTimeline', () => {
  it('counts requests and takes the p95 per second since the first request, empty seconds included', async () => {
    const lines = [
      JSON.stringify({ type: 'Metric', data: { name: 'http_reqs', type: 'counter' }, metric: 'http_reqs' }),
      point('http_reqs', '2026-11-23T10:00:00.500000001Z', 1),
      point('http_req_duration', '2026-11-23T10:00:00.500000001Z', 10),
      point('http_req_waiting', '2026-11-23T10:00:00.500000001Z', 9),
      point('http_reqs', '2026-11-23T10:00:01.100Z', 1),
      point('http_req_duration', '2026-11-23T10:00:01.100Z', 30),
      point('http_reqs', '2026-11-23T10:00:01.400Z', 1),
      point('http_req_duration', '2026-11-23T10:00:01.400Z', 20),
      'not json at all {"type":"Point","metric":"http_reqs"',
      point('http_reqs', '2026-11-23T10:00:03.600Z', 1),
    ];
    const dir = await mkdtemp(join(tmpdir(), 'ces-timeline-test-'));
    const file = join(dir, 'points.json.gz');
    await writeFile(file, gzipSync(`${lines.join('\n')}\n`));
    // Seconds count from the first request (at .5): .5, 1.1 and 1.4 fall in the first.
    expect(await readTimeline(file)).toEqual([
      { t: 0, requests: 3, p95_ms: 30 },
      { t: 1, requests: 0 },
      { t: 2, requests: 0 },
      { t: 3, requests: 1 },
    ]);
    await writeFile(join(dir, 'plain.json'), lines.join('\n'));
    expect((await readTimeline(join(dir, 'plain.json')))?.map((p) => p.requests)).toEqual([3, 0, 0, 1]);
    expect(await readTimeline(join(dir, 'missing.json.gz'))).toBeUndefined();
  });

  it('keeps a request flushed out of order before the first one read, at the start', () => {
    const ms = (s: number) => Date.parse('2026-11-23T10:00:00Z') + s * 1000;
    const t = timelineOf([
      { metric: 'http_reqs', ms: ms(2.2), value: 1 },
      { metric: 'http_reqs', ms: ms(0.1), value: 1 },
    ]);
    expect(t.reduce((n, p) => n + p.requests, 0)).toBe(2);
    expect(t[0]?.requests).toBe(1);
    expect(t.at(-1)?.requests).toBe(1);
    expect(t.map((p) => p.t)).toEqual(t.map((_, i) => i));
  });

  it('adds up concurrent segments per second, keeping the highest p95', () => {
    expect(
      mergeTimelines([
        [{ t: 0, requests: 3, p95_ms: 5 }],
        [
          { t: 0, requests: 4, p95_ms: 9 },
          { t: 1, requests: 1 },
        ],
        undefined,
      ]),
    ).toEqual([
      { t: 0, requests: 7, p95_ms: 9 },
      { t: 1, requests: 1 },
    ]);
  });
});

describe.skipIf(k6 === undefined)('the timeline of a real k6 run', () => {
  let emulator: Emulator;
  let bundleDir: string;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0 });
    bundleDir = await bundleScenarios();
  });
  afterAll(async () => emulator?.close());

  it('is filled per second, its requests adding up to the summary, and its samples file is gone afterwards', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-'));
    // A temp folder of this run's own (os.tmpdir() follows TMPDIR): other test files running k6 at
    // the same time leave their samples folders in the shared one until their own runs end.
    const privateTmp = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-tmp-'));
    const pointDirs = async () => (await readdir(privateTmp)).filter((n) => n.startsWith('ces-k6-points-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    const result = await runK6Bundle('throughput', {
      k6Path: k6!.path,
      bundleDir,
      workDir,
      caFile: emulator.caFile,
      timeoutMs: 60_000,
      inputs: {
        baseUrl: emulator.url,
        clientId: emulator.credentials.clientId,
        clientSecret: emulator.credentials.clientSecret,
        tokenLifetimeS: 86_400,
        clockToleranceS: 1,
        rate: 5,
        durationS: 4,
        vus: 2,
        retryBudgetS: 5,
        runId: 'timeline-test',
      },
    }).finally(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    });
    expect(result.error).toBeUndefined();
    const timeline = result.timeline ?? [];
    // 4 s at a constant arrival rate: at least three whole seconds of samples, whatever the load on the machine.
    expect(timeline.length).toBeGreaterThanOrEqual(3);
    expect(timeline.map((p) => p.t)).toEqual(timeline.map((_, i) => i));
    expect(timeline.reduce((n, p) => n + p.requests, 0)).toBe(result.requests);
    expect(timeline.filter((p) => p.requests > 0).every((p) => typeof p.p95_ms === 'number' && p.p95_ms > 0)).toBe(
      true,
    );
    expect(await pointDirs()).toEqual([]);
    await rm(privateTmp, { recursive: true, force: true });
  }, 90_000);
});
