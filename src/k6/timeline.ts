// The per-second series of a k6 run (LoadScenarioResult.timeline): requests and p95 latency per
// second since the first request. k6's end-of-test summary has only totals; its JSON output has
// every sample with its time, so each run also writes one (gzipped: a sample is ~400 bytes of
// JSON, and k6 compresses when the name ends in .gz) into a private temp folder, read here and
// deleted. The samples carry tags (URL, status, check names), never headers, so no token.

import { createReadStream, rmSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { atExit } from '../exit-cleanup.js';
import type { LoadScenarioResult } from '../report/model.js';
import { percentile, round } from '../toolkit/stats.js';

export type Timeline = NonNullable<LoadScenarioResult['timeline']>;

// Bounds on what is read: a run long or fast enough to pass them gets no chart rather than a
// harness that spends minutes parsing. 64 MB gzipped is some 1.5 GB of JSON, ~4 million requests.
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_LINES = 50_000_000;
// Longer than any run the harness starts (defaultTimeoutMs is minutes); a bound on the array.
const MAX_SECONDS = 24 * 3600;

/** A private folder for the points file of one k6 process, and the --out arguments that fill it. */
export async function timelineOutput(): Promise<{ file: string; args: string[]; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-points-'));
  // Removed even when the process ends at once (a second Ctrl-C), not only by dispose().
  const forget = atExit(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'points.json.gz');
  return {
    file,
    args: ['--out', `json=${file}`],
    dispose: async () => {
      await rm(dir, { recursive: true, force: true });
      forget();
    },
  };
}

export interface Point {
  metric: string;
  ms: number;
  value: number;
}

// A line is parsed only when it can be a point of one of the two metrics read: most lines are
// other metrics (timings, data sizes, checks), and JSON.parse of each would cost more than the run.
function pointOf(line: string): Point | null {
  if (
    !line.includes('"type":"Point"') ||
    !(line.includes('"metric":"http_reqs"') || line.includes('"metric":"http_req_duration"'))
  )
    return null;
  try {
    const p = JSON.parse(line) as { metric?: unknown; data?: { time?: unknown; value?: unknown } };
    const ms = typeof p.data?.time === 'string' ? Date.parse(p.data.time) : NaN;
    const value = p.data?.value;
    if (typeof p.metric !== 'string' || !Number.isFinite(ms) || typeof value !== 'number') return null;
    return { metric: p.metric, ms, value };
  } catch {
    return null;
  }
}

/**
 * Per second since the first request: requests and p95 latency, seconds without a request as 0.
 * Fed point by point, so a long run's samples are never all held: only the per-second counts and
 * the durations (8 bytes each) are.
 */
export class TimelineBuilder {
  private origin: number | undefined;
  private readonly counts = new Map<number, number>();
  private readonly durations = new Map<number, number[]>();

  add(p: Point): void {
    // k6 writes points nearly in time order; the first request's second is the provisional origin,
    // and a request flushed out of order before it only makes a negative second, shifted at the end.
    if (this.origin === undefined) {
      if (p.metric !== 'http_reqs') return;
      this.origin = p.ms;
    }
    const t = Math.floor((p.ms - this.origin) / 1000);
    if (Math.abs(t) > MAX_SECONDS) return;
    if (p.metric === 'http_reqs') this.counts.set(t, (this.counts.get(t) ?? 0) + p.value);
    else (this.durations.get(t) ?? this.durations.set(t, []).get(t)!).push(p.value);
  }

  build(): Timeline {
    if (this.counts.size === 0) return [];
    let first = Infinity;
    let last = -Infinity;
    for (const t of this.counts.keys()) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    return Array.from({ length: last - first + 1 }, (_, i) => {
      const d = this.durations.get(first + i);
      const p95 = d && d.length > 0 ? round(percentile(d, 95)!, 3) : undefined;
      return { t: i, requests: this.counts.get(first + i) ?? 0, ...(p95 !== undefined ? { p95_ms: p95 } : {}) };
    });
  }
}

export function timelineOf(points: Iterable<Point>): Timeline {
  const builder = new TimelineBuilder();
  for (const p of points) builder.add(p);
  return builder.build();
}

/** The timeline of one k6 JSON output file (gzipped or not), or undefined when there is none to read. */
export async function readTimeline(file: string): Promise<Timeline | undefined> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return undefined;
  }
  if (size === 0 || size > MAX_FILE_BYTES) return undefined;
  const raw = createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const builder = new TimelineBuilder();
  let lines = 0;
  try {
    // crlfDelay: a line k6 ends in \r\n is still one line.
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (++lines > MAX_LINES) return undefined;
      const p = pointOf(line);
      if (p) builder.add(p);
    }
  } catch {
    // A file k6 was killed while writing ends mid-stream; the samples read so far are still real.
  } finally {
    raw.destroy();
  }
  const timeline = builder.build();
  return timeline.length > 0 ? timeline : undefined;
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
