// The per-second series of a k6 run (LoadScenarioResult.timeline): requests and p95 latency per
// second. k6's end-of-test summary has only totals; its web dashboard, on in every k6 process the
// harness starts (K6_WEB_DASHBOARD_PERIOD=1s), already adds up every request in Go once a second,
// and its export (one HTML file) carries those one-second snapshots: the timeline is read from
// there. The scenarios used to note each request in JavaScript for it, which cost k6 some 30 % more
// CPU a request than the same load without (docs/development.md). The export holds metrics only:
// no URL, no token.

import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { atExit } from '../exit-cleanup.js';
import type { LoadScenarioResult } from '../report/model.js';
import { round } from '../toolkit/stats.js';

export type Timeline = NonNullable<LoadScenarioResult['timeline']>;

// Bounds on what is read: k6 keeps an export near 1 MB (it widens its period past 2,880 points).
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_EVENTS_BYTES = 256 * 1024 * 1024;
/** Where the export's events are, gzipped and in base64, up to the next </script>. */
export const DASHBOARD_DATA_TAG = '<script id="data" type="application/json; charset=utf-8; gzip; base64">';
/** The dashboard's period the timeline is read at: a snapshot is one second. */
export const TIMELINE_PERIOD_MS = 1_000;

/**
 * A private folder for the dashboard export of a k6 process whose export is not kept (no report
 * folder): the timeline is read from it, then it is deleted.
 */
export async function privateDashboardExport(): Promise<{ file: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-dashboard-'));
  // Removed even when the process ends at once (a second Ctrl-C), not only by dispose().
  const forget = atExit(() => rmSync(dir, { recursive: true, force: true }));
  return {
    file: join(dir, 'dashboard.html'),
    dispose: async () => {
      await rm(dir, { recursive: true, force: true });
      forget();
    },
  };
}

/** One event of the export, as the dashboard records it: `{"event": name, "data": …}`. */
interface DashboardEvent {
  event?: unknown;
  data?: unknown;
}

/** The export's events in their order, or undefined when the file is not a dashboard export. */
function dashboardEvents(html: string): DashboardEvent[] | undefined {
  const from = html.indexOf(DASHBOARD_DATA_TAG);
  if (from < 0) return undefined;
  const to = html.indexOf('</script>', from);
  if (to < 0) return undefined;
  try {
    const json = gunzipSync(Buffer.from(html.slice(from + DASHBOARD_DATA_TAG.length, to), 'base64'), {
      maxOutputLength: MAX_EVENTS_BYTES,
    }).toString('utf8');
    return json
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as DashboardEvent);
  } catch {
    return undefined;
  }
}

/** Go's sort.Strings order (bytes of UTF-8), which orders a snapshot's values by metric name. */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** One snapshot or cumulative record: per metric (sorted by name), its aggregates; `[]` when it had no sample. */
type Values = ReadonlyArray<ReadonlyArray<number> | null>;

const isValues = (data: unknown): data is Values =>
  Array.isArray(data) && data.every((v) => v === null || (Array.isArray(v) && v.every((x) => typeof x === 'number')));

/**
 * Reads the export's events as the dashboard's own page does: `metric` events name the metrics as
 * they appear; each `snapshot` (one a period) and the closing `cumulative` hold one array of
 * aggregates per metric seen so far, in the byte order of their names; `param` says the period and
 * which aggregate is where (counter: count, rate; trend: avg, max, med, min, p(90), p(95), p(99)).
 */
function secondsOf(
  events: readonly DashboardEvent[],
): { seconds: Array<{ requests: number; p95?: number }>; total: number } | undefined {
  const seen = new Set<string>();
  let names: string[] = [];
  let countAt = -1;
  let p95At = -1;
  let periodMs: unknown;
  let total: number | undefined;
  const seconds: Array<{ requests: number; p95?: number }> = [];
  const countIn = (values: Values): number | undefined => {
    const reqs = values[names.indexOf('http_reqs')];
    if (reqs === undefined || reqs === null || reqs.length === 0) return 0;
    return reqs[countAt];
  };
  for (const e of events) {
    if (e.event === 'param') {
      const p = e.data as { period?: unknown; aggregates?: { counter?: unknown; trend?: unknown } } | null;
      periodMs = p?.period;
      countAt = Array.isArray(p?.aggregates?.counter) ? p.aggregates.counter.indexOf('count') : -1;
      p95At = Array.isArray(p?.aggregates?.trend) ? p.aggregates.trend.indexOf('p(95)') : -1;
    } else if (e.event === 'metric' && typeof e.data === 'object' && e.data !== null) {
      for (const name of Object.keys(e.data)) seen.add(name);
      names = [...seen].sort(byBytes);
    } else if (e.event === 'snapshot' || e.event === 'cumulative') {
      // Values for other metrics than those named so far: not the format this reader knows.
      if (!isValues(e.data) || e.data.length !== names.length || countAt < 0) return undefined;
      const requests = countIn(e.data);
      if (requests === undefined || !Number.isInteger(requests) || requests < 0) return undefined;
      if (e.event === 'cumulative') total = requests;
      else {
        const p95 = requests > 0 ? e.data[names.indexOf('http_req_duration')]?.[p95At] : undefined;
        seconds.push({ requests, ...(typeof p95 === 'number' && { p95 }) });
      }
    }
  }
  // k6 widens the period past 2,880 points (runs over 48 min): not one-second samples then.
  if (periodMs !== TIMELINE_PERIOD_MS || total === undefined) return undefined;
  return { seconds, total };
}

/**
 * The timeline of one k6 web-dashboard export: per second from the first second with a request,
 * requests and p95 latency, seconds without a request as 0. k6 takes no snapshot of the last
 * fraction of a second (after its last whole period), so what its closing total has beyond the
 * snapshots is that last second's, without a p95. Undefined when the export is not one this reader
 * knows, or when its total differs from `requests`, the count of k6's summary: a chart that
 * undercounts would say the load fell when it did not.
 */
export function timelineOfDashboard(html: string, requests: number | undefined): Timeline | undefined {
  const events = dashboardEvents(html);
  const read = events && secondsOf(events);
  if (read === undefined || requests === undefined || read.total !== requests || requests === 0) return undefined;
  const first = read.seconds.findIndex((s) => s.requests > 0);
  const seconds = first < 0 ? [] : read.seconds.slice(first);
  const rest = read.total - seconds.reduce((n, s) => n + s.requests, 0);
  if (rest < 0) return undefined;
  if (rest > 0) seconds.push({ requests: rest });
  return seconds.map((s, t) => ({
    t,
    requests: s.requests,
    ...(s.p95 !== undefined && { p95_ms: round(s.p95, 3) }),
  }));
}

/** The timeline of the dashboard export in `file` (timelineOfDashboard), or undefined when there is none to read. */
export async function readTimeline(file: string, requests: number | undefined): Promise<Timeline | undefined> {
  try {
    const size = (await stat(file)).size;
    if (size === 0 || size > MAX_FILE_BYTES) return undefined;
    return timelineOfDashboard(await readFile(file, 'utf8'), requests);
  } catch {
    return undefined;
  }
}

/**
 * Segments run at once (k6 execution segments): their requests add up per second; the p95 of the
 * whole is not derivable from the parts' p95s, so the highest part's stands, as an upper bound.
 */
export function mergeTimelines(parts: ReadonlyArray<Timeline | undefined>): Timeline | undefined {
  const present = parts.filter((p): p is Timeline => p !== undefined && p.length > 0);
  if (present.length <= 1) return present[0];
  const length = Math.max(...present.map((p) => p.length));
  return Array.from({ length }, (_, t) => {
    const at = present.map((p) => p[t]).filter((x) => x !== undefined);
    const p95s = at.map((x) => x.p95_ms).filter((x): x is number => x !== undefined);
    return {
      t,
      requests: at.reduce((n, x) => n + x.requests, 0),
      ...(p95s.length > 0 ? { p95_ms: Math.max(...p95s) } : {}),
    };
  });
}
