// The per-second timeline of a load scenario, read from k6's web-dashboard export (src/k6/timeline.ts):
// on exports written here in the dashboard's own format, and from a real k6 run against the
// emulator, whose timeline's requests add up to the summary's count.

import { gzipSync } from 'node:zlib';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { runK6Bundle, type LoadRunOptions } from '../../src/k6/scenarios.js';
import type { LoadScenarioResult } from '../../src/report/model.js';
import { DASHBOARD_DATA_TAG, mergeTimelines, readTimeline, timelineOfDashboard } from '../../src/k6/timeline.js';
import { bundleScenarios, realK6 } from './support.js';

const k6 = await realK6();

// As k6 v2's dashboard records them (internal/dashboard): `param` gives the period and where each
// aggregate is; `metric` names metrics as they appear; each `snapshot` (one a period) and the
// closing `cumulative` hold one array per metric seen so far, in the byte order of their names.
const PARAM = {
  event: 'param',
  data: {
    period: 1000,
    aggregates: {
      counter: ['count', 'rate'],
      gauge: ['value'],
      rate: ['rate'],
      trend: ['avg', 'max', 'med', 'min', 'p(90)', 'p(95)', 'p(99)'],
    },
  },
};
const METRICS = { event: 'metric', data: { http_req_duration: { type: 'trend' }, http_reqs: { type: 'counter' } } };
/** One period's values, by sorted name: http_req_duration, http_reqs, time. */
const values = (requests: number, p95 = 0): unknown[] => [
  requests > 0 ? [1, 2, 1, 0.5, 1.5, p95, 3] : [],
  requests > 0 ? [requests, requests] : [],
  [1_795_914_589_385],
];
const snapshot = (requests: number, p95?: number) => ({ event: 'snapshot', data: values(requests, p95) });

/** An export as k6 writes it: its page, with the events gzipped and in base64 in the data tag. */
function exportOf(events: unknown[]): string {
  const ndjson = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const data = gzipSync(Buffer.from(ndjson)).toString('base64');
  return `<!DOCTYPE html><html><head>${DASHBOARD_DATA_TAG}${data}</script></head><body></body></html>`;
}

const run = (seconds: Array<[number, number?]>, total: number, param: unknown = PARAM) =>
  exportOf([
    param,
    { event: 'metric', data: { time: { type: 'gauge' } } },
    { event: 'start', data: [[1_795_914_588_376]] },
    METRICS,
    ...seconds.map(([n, p95]) => snapshot(n, p95)),
    { event: 'stop', data: [[1_795_914_600_191]] },
    { event: 'cumulative', data: values(total, 9) },
  ]);

describe('timelineOfDashboard', () => {
  it("counts requests and takes the p95 per second from the first second with a request, and the last fraction from k6's total", () => {
    // A second before the first request (k6 starting), a quiet second, then 4 requests after the last snapshot.
    const html = run([[0], [25, 31.0061234], [0], [40, 15.9]], 69);
    expect(timelineOfDashboard(html, 69)).toEqual([
      { t: 0, requests: 25, p95_ms: 31.006 },
      { t: 1, requests: 0 },
      { t: 2, requests: 40, p95_ms: 15.9 },
      { t: 3, requests: 4 },
    ]);
    // A total without a last fraction adds no point.
    expect(timelineOfDashboard(run([[25, 1]], 25), 25)).toEqual([{ t: 0, requests: 25, p95_ms: 1 }]);
  });

  it('finds the requests among metrics that appear later and sort before them', () => {
    // `checks` and `data_sent` sort before http_reqs: each snapshot from then on has two more arrays.
    const html = exportOf([
      PARAM,
      { event: 'metric', data: { time: {} } },
      METRICS,
      snapshot(3, 7),
      { event: 'metric', data: { checks: {}, data_sent: {} } },
      { event: 'snapshot', data: [[1], [100, 100], ...values(5, 8)] },
      { event: 'cumulative', data: [[1], [200, 40], ...values(8, 9)] },
    ]);
    expect(timelineOfDashboard(html, 8)).toEqual([
      { t: 0, requests: 3, p95_ms: 7 },
      { t: 1, requests: 5, p95_ms: 8 },
    ]);
  });

  it("gives no timeline rather than a false one: another total than k6's, another period, an unknown layout", () => {
    const html = run([[25, 1]], 30);
    expect(timelineOfDashboard(html, 30)).toBeDefined();
    expect(timelineOfDashboard(html, 31)).toBeUndefined();
    expect(timelineOfDashboard(html, undefined)).toBeUndefined();
    // Snapshots counting more than the total.
    expect(timelineOfDashboard(run([[40, 1]], 30), 30)).toBeUndefined();
    // k6 widens the period of a run over 48 minutes: not one-second points.
    const wide = run([[3, 1], [0]], 3, { ...PARAM, data: { ...PARAM.data, period: 2000 } });
    expect(timelineOfDashboard(wide, 3)).toBeUndefined();
    // A snapshot with more arrays than metrics named: a format this reader does not know.
    const odd = exportOf([
      PARAM,
      METRICS,
      { event: 'metric', data: { time: {} } },
      { event: 'snapshot', data: [[1], ...values(3)] },
      { event: 'cumulative', data: values(3) },
    ]);
    expect(timelineOfDashboard(odd, 3)).toBeUndefined();
    // Not an export at all, or its data not gzip.
    expect(timelineOfDashboard('<html></html>', 3)).toBeUndefined();
    expect(timelineOfDashboard(`${DASHBOARD_DATA_TAG}bm90IGd6aXA=</script>`, 3)).toBeUndefined();
  });

  it('reads an export from its file, and none from a file that is not there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-timeline-test-'));
    const file = join(dir, 'k6-dashboard-tls.html');
    await writeFile(file, run([[2, 5]], 2));
    expect(await readTimeline(file, 2)).toEqual([{ t: 0, requests: 2, p95_ms: 5 }]);
    expect(await readTimeline(join(dir, 'missing.html'), 2)).toBeUndefined();
    await rm(dir, { recursive: true, force: true });
  });
});

describe('mergeTimelines', () => {
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

  const options = (workDir: string): LoadRunOptions => ({
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
  });

  function expectPerSecond(result: LoadScenarioResult): void {
    const timeline = result.timeline ?? [];
    // VUs looping for 4 s: at least three whole seconds of requests, whatever the load on the machine.
    expect(timeline.length).toBeGreaterThanOrEqual(3);
    expect(timeline.map((p) => p.t)).toEqual(timeline.map((_, i) => i));
    expect(timeline.reduce((n, p) => n + p.requests, 0)).toBe(result.requests);
    // Every whole second with requests has its p95 (only the last fraction, after k6's last snapshot, has none).
    const whole = timeline.slice(0, -1).filter((p) => p.requests > 0);
    expect(whole.every((p) => typeof p.p95_ms === 'number' && p.p95_ms > 0)).toBe(true);
  }

  it("is filled per second from k6's dashboard, its requests adding up to the summary, and a private export is gone afterwards", async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-'));
    // A temp folder of this run's own (os.tmpdir() follows TMPDIR): other test files running k6 at
    // the same time leave their folders in the shared one until their own runs end.
    const privateTmp = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-tmp-'));
    const exportDirs = async () => (await readdir(privateTmp)).filter((n) => n.startsWith('ces-k6-dashboard-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    // No report folder (dashboardDir): the export goes to a private folder, read, then deleted.
    const result = await runK6Bundle('token-lifecycle', options(workDir)).finally(() => {
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    });
    expect(result.error).toBeUndefined();
    expect(result.dashboards).toBeUndefined();
    expectPerSecond(result);
    expect(await exportDirs()).toEqual([]);
    await rm(privateTmp, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  }, 90_000);

  it('is read from the export kept in the report folder, as the CLI runs it', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'ces-k6-timeline-'));
    const result = await runK6Bundle('token-lifecycle', { ...options(workDir), dashboardDir: workDir });
    expect(result.error).toBeUndefined();
    expect(result.dashboards).toEqual(['k6-dashboard-token-lifecycle.html']);
    expectPerSecond(result);
    await rm(workDir, { recursive: true, force: true });
  }, 90_000);
});
