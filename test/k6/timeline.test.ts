// The per-second timeline of a load scenario, from the lines the scenarios write to k6's console
// (scenarios/lib/timeline.ts): a real k6 run against the emulator fills LoadScenarioResult.timeline,
// whose requests add up to the summary's count; and the reader of the lines, on files written here.

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { requestsOfTimelineLine, scenarioEnv, timelineLine } from '../../src/k6/contract.js';
import { runScenario } from '../../src/k6/run.js';
import { runK6Bundle } from '../../src/k6/scenarios.js';
import { mergeTimelines, readTimeline, timelineOf } from '../../src/k6/timeline.js';
import { bundleScenarios, realK6 } from './support.js';

const k6 = await realK6();

const at = (s: number) => Date.parse('2026-11-23T10:00:00Z') + s * 1000;
// As k6 writes a console line to --console-output (logfmt, its default log format).
const logged = (ends: number[], durations: number[]) =>
  `time="2026-11-23T10:00:05Z" level=info msg="${timelineLine(ends, durations)}" source=console`;

describe('the timeline lines', () => {
  it("carry each request's end and duration through a line and back", () => {
    const ends = [at(0.5), at(0.5), at(1.25), at(1.2)];
    const durations = [10, 0.25, 31.123456, 2e-7];
    expect(requestsOfTimelineLine(logged(ends, durations))).toEqual({ ends, durations });
    // k6's JSON log format (--log-format json) quotes the message the same way.
    expect(requestsOfTimelineLine(JSON.stringify({ msg: timelineLine([5], [1]) }))?.ends).toEqual([5]);
  });

  it('are written as the first end and duration, then each pause since the previous end and its duration', () => {
    expect(timelineLine([1_000, 1_003.5, 1_010], [1.5, 2e-7, 31.123456])).toBe(
      'ces-timeline 1000 1.5 3.5 2e-7 6.5 31.123456',
    );
  });

  it('are told apart from other console lines and from malformed ones', () => {
    expect(requestsOfTimelineLine('time="x" level=info msg="a script said something" source=console')).toBeNull();
    expect(requestsOfTimelineLine('msg="ces-timeline 1700000000000"')).toBeNull();
    expect(requestsOfTimelineLine('msg="ces-timeline "')).toBeNull();
    expect(requestsOfTimelineLine('msg="ces-timeline 1 2 x 4"')).toBeNull();
  });
});

describe('readTimeline', () => {
  it('counts requests and takes the p95 per second since the first request, empty seconds included', async () => {
    // Two VUs' batches, out of time order: the first request (.5) is in the second line.
    const lines = [
      logged([at(1.1), at(1.4)], [30, 20]),
      'time="2026-11-23T10:00:05Z" level=info msg="something else" source=console',
      logged([at(0.5), at(3.6)], [10, 5]),
      'msg="ces-timeline 1 2 x 4"',
    ];
    const dir = await mkdtemp(join(tmpdir(), 'ces-timeline-test-'));
    const file = join(dir, 'console.log');
    await writeFile(file, `${lines.join('\n')}\n`);
    // Seconds count from the first request (at .5): .5, 1.1 and 1.4 fall in the first.
    expect(await readTimeline(file, 4)).toEqual([
      { t: 0, requests: 3, p95_ms: 30 },
      { t: 1, requests: 0 },
      { t: 2, requests: 0 },
      { t: 3, requests: 1, p95_ms: 5 },
    ]);
    // A VU's last batch lost: fewer requests than k6 counted, and no chart rather than a false one.
    expect(await readTimeline(file, 5)).toBeUndefined();
    expect(await readTimeline(file, undefined)).toBeUndefined();
    expect(await readTimeline(join(dir, 'missing.log'), 4)).toBeUndefined();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps a request written out of order before the first one read, at the start', () => {
    const t = timelineOf([
      { endMs: at(2.2), durationMs: 1 },
      { endMs: at(0.1), durationMs: 1 },
    ]);
    expect(t.map((p) => p.requests)).toEqual([1, 0, 1]);
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

  it('is filled per second, its requests adding up to the summary, and its console file is gone afterwards', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-'));
    // A temp folder of this run's own (os.tmpdir() follows TMPDIR): other test files running k6 at
    // the same time leave their folders in the shared one until their own runs end.
    const privateTmp = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-tmp-'));
    const pointDirs = async () => (await readdir(privateTmp)).filter((n) => n.startsWith('ces-k6-points-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    // token-lifecycle: VUs of a constant-vus scenario batch their requests until near its end; the
    // per-vu-iterations ones write each request at once (scenarios/lib/timeline.ts).
    const result = await runK6Bundle('token-lifecycle', {
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
    // VUs looping for 4 s: at least three whole seconds of requests, whatever the load on the machine.
    expect(timeline.length).toBeGreaterThanOrEqual(3);
    expect(timeline.map((p) => p.t)).toEqual(timeline.map((_, i) => i));
    expect(timeline.reduce((n, p) => n + p.requests, 0)).toBe(result.requests);
    expect(timeline.filter((p) => p.requests > 0).every((p) => typeof p.p95_ms === 'number' && p.p95_ms > 0)).toBe(
      true,
    );
    expect(await pointDirs()).toEqual([]);
    await rm(privateTmp, { recursive: true, force: true });
  }, 90_000);

  it('is not written when the harness does not ask for it: a bundle run by hand keeps its log quiet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-off-'));
    const inputs = {
      baseUrl: emulator.url,
      clientId: emulator.credentials.clientId,
      clientSecret: emulator.credentials.clientSecret,
      tokenLifetimeS: 86_400,
      clockToleranceS: 1,
      rate: 1,
      durationS: 1,
      vus: 1,
      runId: 'timeline-off-test',
    };
    // tls12-refused: three quick calls, each one noted when the timeline is asked for.
    const run = await runScenario({
      k6Path: k6!.path,
      bundle: join(bundleDir, 'tls12-refused.js'),
      env: scenarioEnv(inputs),
      summaryFile: join(dir, 'summary.json'),
      caFile: emulator.caFile,
      extraArgs: ['--console-output', join(dir, 'console.log')],
      timeoutMs: 60_000,
    });
    expect(run.summary).toBeDefined();
    const written = await readFile(join(dir, 'console.log'), 'utf8').catch(() => '');
    expect(written.split('\n').filter((l) => requestsOfTimelineLine(l) !== null)).toEqual([]);
    expect(run.stderrTail).not.toContain('ces-timeline');
    await rm(dir, { recursive: true, force: true });
  }, 90_000);
});
