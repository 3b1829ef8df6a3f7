// The source of the report's per-second timeline: each request's end and duration, written to k6's
// console (which the harness sends to a file of its own, --console-output; src/k6/timeline.ts reads
// it), only when the harness asks (cfg.timeline; lib/endpoints.ts calls this). k6's sample output
// (--out json) did the same at about the CPU cost of the request itself, for some fifteen samples
// a request of which the timeline reads two.
//
// A VU batches its requests (src/k6/timeline-batch.ts) only in a constant-vus scenario, where it
// loops until the scenario's end and no later; anywhere else (arrival-rate VUs may idle, a
// per-vu-iterations VU's last iteration is not known ahead, setup and teardown) it writes each
// request at once. A lost request is still caught: the Node side compares the count with k6's
// summary and leaves the chart out when they differ.

import exec from 'k6/execution';
import { TimelineBatch } from '../../src/k6/timeline-batch.js';

// k6 has console.log (its types do not declare it): it writes to k6's log, or --console-output.
declare const console: { log(line: string): void };

/** k6 duration strings as scenarios give them ("5s", "1m30s", "500ms"), in ms; NaN when not one. */
function durationMs(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || !/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(v)) return NaN;
  const unit: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, n, , u] of v.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g)) total += Number(n) * unit[u!]!;
  return total;
}

/** The end of the constant-vus scenario this VU runs (epoch ms), or 0 in any other case. */
function constantVusEnd(): number {
  try {
    const scenario = exec.scenario;
    if (scenario.executor !== 'constant-vus') return 0;
    const options = exec.test.options.scenarios?.[scenario.name] as { duration?: unknown } | undefined;
    const ms = durationMs(options?.duration);
    return Number.isFinite(ms) && ms > 0 ? scenario.startTime + ms : 0;
  } catch {
    // Outside a VU (setup, teardown) k6 has no scenario to tell.
    return 0;
  }
}

const batch = new TimelineBatch((line) => console.log(line), constantVusEnd);

/** Notes one answered request (after http.* returned): its end is now, its duration k6's. */
export function recordRequest(res: { timings: { duration: number } }): void {
  batch.add(Date.now(), res.timings.duration);
}
