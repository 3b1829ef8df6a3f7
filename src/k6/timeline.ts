// The per-second series of a k6 run (LoadScenarioResult.timeline): requests and p95 latency per
// second since the first request. k6's end-of-test summary has only totals; so every request the
// scenarios send also goes, with its end and duration, into k6's console output (scenarios/lib/
// timeline.ts, one line per VU and second at most), which each run sends to a file in a private temp
// folder, read here and deleted. The lines carry times and durations only: no URL, no token.

import { createReadStream, rmSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { atExit } from '../exit-cleanup.js';
import type { LoadScenarioResult } from '../report/model.js';
import { percentile, round } from '../toolkit/stats.js';
import { requestsOfTimelineLine, SCENARIO_ENV } from './contract.js';

export type Timeline = NonNullable<LoadScenarioResult['timeline']>;

// Bounds on what is read: a run long or fast enough to pass them gets no chart rather than a
// harness that spends minutes parsing. A request is some 12 bytes of a line: 64 MB is ~5 million.
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_LINES = 10_000_000;
// Longer than any run the harness starts (defaultTimeoutMs is minutes); a bound on the array.
const MAX_SECONDS = 24 * 3600;

/**
 * A private folder for the console output of one k6 process, the arguments that send it there, and
 * the variable that makes the scenarios write their request lines.
 */
export async function timelineOutput(): Promise<{
  file: string;
  args: string[];
  env: Record<string, string>;
  dispose: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-points-'));
  // Removed even when the process ends at once (a second Ctrl-C), not only by dispose().
  const forget = atExit(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'console.log');
  return {
    file,
    args: ['--console-output', file],
    env: { [SCENARIO_ENV.timeline]: '1' },
    dispose: async () => {
      await rm(dir, { recursive: true, force: true });
      forget();
    },
  };
}

/** One answered request: when it ended (epoch ms) and how long it took (ms). */
export interface TimedRequest {
  endMs: number;
  durationMs: number;
}

/**
 * Per second since the first request: requests and p95 latency, seconds without a request as 0.
 * VUs write their batches out of time order, so the first request is known only at the end:
 * ends and durations are held (16 bytes a request) until build().
 */
export class TimelineBuilder {
  private readonly ends: number[] = [];
  private readonly durations: number[] = [];
  private first = Infinity;

  add(endMs: number, durationMs: number): void {
    this.ends.push(endMs);
    this.durations.push(durationMs);
    this.first = Math.min(this.first, endMs);
  }

  build(): Timeline {
    const counts = new Map<number, number>();
    const durations = new Map<number, number[]>();
    let last = -1;
    for (let i = 0; i < this.ends.length; i++) {
      const t = Math.floor((this.ends[i]! - this.first) / 1000);
      if (t > MAX_SECONDS) continue;
      last = Math.max(last, t);
      counts.set(t, (counts.get(t) ?? 0) + 1);
      (durations.get(t) ?? durations.set(t, []).get(t)!).push(this.durations[i]!);
    }
    return Array.from({ length: last + 1 }, (_, t) => {
      const d = durations.get(t);
      const p95 = d && d.length > 0 ? round(percentile(d, 95)!, 3) : undefined;
      return { t, requests: counts.get(t) ?? 0, ...(p95 !== undefined ? { p95_ms: p95 } : {}) };
    });
  }
}

export function timelineOf(requests: Iterable<TimedRequest>): Timeline {
  const builder = new TimelineBuilder();
  for (const r of requests) builder.add(r.endMs, r.durationMs);
  return builder.build();
}

/**
 * The timeline of one k6 process's console output file, or undefined when there is none to read,
 * or when its requests do not add up to `requests`, the count of k6's summary (a VU stopped before
 * it wrote its last batch): a chart that undercounts would say the load fell when it did not.
 */
export async function readTimeline(file: string, requests: number | undefined): Promise<Timeline | undefined> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return undefined;
  }
  if (size === 0 || size > MAX_FILE_BYTES) return undefined;
  const input = createReadStream(file);
  const builder = new TimelineBuilder();
  let lines = 0;
  let read = 0;
  try {
    // crlfDelay: a line k6 ends in \r\n is still one line.
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (++lines > MAX_LINES) return undefined;
      const batch = requestsOfTimelineLine(line);
      if (batch === null) continue;
      for (let i = 0; i < batch.ends.length; i++) builder.add(batch.ends[i]!, batch.durations[i]!);
      read += batch.ends.length;
    }
  } catch {
    return undefined;
  } finally {
    input.destroy();
  }
  if (read === 0 || read !== requests) return undefined;
  return builder.build();
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
