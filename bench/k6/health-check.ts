// Bench-only k6 script: as many POST /tokens/health_check as CES_BENCH_VUS looping VUs get through
// in CES_BENCH_DURATION_S. Not a scenario of the harness (no checks, no thresholds: a benchmark
// reports); bench/k6-vs-wrk.ts bundles it with esbuild and runs it through src/k6/run.ts.

import http from 'k6/http';
import { readConfig } from '../../scenarios/lib/config.js';
import { healthCheck } from '../../scenarios/lib/endpoints.js';

function positive(name: string, fallback: number): number {
  const raw = __ENV[name];
  const n = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${String(raw)}"`);
  return n;
}

const base = (__ENV.CES_BASE_URL ?? '').replace(/\/+$/, '');
if (base === '') throw new Error('CES_BASE_URL is not set');
const url = `${base}/tokens/health_check`;
const vus = Math.round(positive('CES_BENCH_VUS', 16));
const durationS = positive('CES_BENCH_DURATION_S', 5);
// CES_BENCH_WRAPPER=1: each request through the harness's own wrapper, as the scenarios send it
// (scenarios/lib/endpoints.ts: its headers and Idempotency-Key, tags, timeout, the body kept as
// text), configured by the scenarios' own reader from the CES_* inputs.
const cfg = __ENV['CES_BENCH_WRAPPER'] === '1' ? readConfig() : undefined;

export const options = {
  scenarios: {
    // Closed model: each VU sends its next request as soon as the last one is answered, like wrk's
    // connections, so both measure the most the pair (generator, emulator) can do at that concurrency.
    health: { executor: 'constant-vus', vus, duration: `${durationS}s`, gracefulStop: '5s' },
  },
  // The bodies are never read; not keeping them is what a throughput test should do in k6.
  discardResponseBodies: true,
  // Fewer trend stats: less summary work, and these are all the bench prints.
  summaryTrendStats: ['med', 'p(99)', 'max'],
  // The harness's own (scenarios/lib/options.ts); bench/wrk/post.lua sends the same.
  userAgent: 'ces-harness (k6)',
};

export default function (): void {
  if (cfg !== undefined) {
    healthCheck(cfg);
    return;
  }
  http.post(url, null);
}

/** src/k6/run.ts reads the summary back from CES_SUMMARY_FILE. */
export function handleSummary(data: Record<string, unknown>): Record<string, string> {
  const file = __ENV.CES_SUMMARY_FILE;
  return file ? { [file]: JSON.stringify(data) } : {};
}
