// Bench-only k6 script: as many POST /tokens/health_check as CES_BENCH_VUS looping VUs get through
// in CES_BENCH_DURATION_S. Not a scenario of the harness (a benchmark reports); bench/k6-vs-wrk.ts
// bundles it with esbuild and runs it through src/k6/run.ts, in one of three shapes:
// - bare: http.post and nothing else, k6's own cost;
// - CES_BENCH_WRAPPER=1: each request through the scenarios' wrapper (scenarios/lib/endpoints.ts);
// - CES_BENCH_SCENARIO=1: each request as a load scenario sends and judges a call (the throughput
//   scenario's path: the wrapper, withRetry, settle, a check, a duration trend), with a scenario's
//   options (thresholds, trend statistics, run_id tag, response callback) and summary handler. Its
//   difference to bare is the harness's own cost per request.

import { check } from 'k6';
import http from 'k6/http';
import type { Options } from 'k6/options';
import { readConfig } from '../../scenarios/lib/config.js';
import { healthCheck } from '../../scenarios/lib/endpoints.js';
import { timeTrend } from '../../scenarios/lib/metrics.js';
import { scenarioOptions } from '../../scenarios/lib/options.js';
import { settle, withRetry } from '../../scenarios/lib/retry.js';
import { summaryHandler } from '../../scenarios/lib/summary.js';

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
const asScenario = __ENV['CES_BENCH_SCENARIO'] === '1';
// The wrapper and the scenario shape read the scenarios' own inputs (CES_*) with their own reader.
const cfg = __ENV['CES_BENCH_WRAPPER'] === '1' || asScenario ? readConfig() : undefined;

// Closed model: each VU sends its next request as soon as the last one is answered, like wrk's
// connections, so both measure the most the pair (generator, emulator) can do at that concurrency.
const health = {
  executor: 'constant-vus' as const,
  vus,
  duration: `${durationS}s`,
  gracefulStop: '5s',
  // As the throughput scenario tags each of its two scenarios, for its per-mode thresholds.
  tags: { mode: 'bench' },
};

const callDuration = timeTrend('logical_call_duration_bench');
const withinTimeout = `p(95)<${Math.round((cfg?.requestTimeoutS ?? 10) * 1000)}`;

export const options: Options =
  asScenario && cfg !== undefined
    ? scenarioOptions(
        cfg,
        { health },
        {
          // The throughput scenario's thresholds, for this one endpoint.
          logical_calls_lost: ['count==0'],
          checks: ['rate>0.99'],
          http_req_failed: ['rate<0.01'],
          http_req_duration: [withinTimeout],
          'http_req_duration{mode:bench}': [withinTimeout],
        },
      )
    : {
        scenarios: { health },
        // The bodies are never read; not keeping them is what a throughput test should do in k6.
        discardResponseBodies: true,
        // Fewer trend stats: less summary work, and these are all the bench prints.
        summaryTrendStats: ['med', 'p(99)', 'max'],
        // The harness's own (scenarios/lib/options.ts); bench/wrk/post.lua sends the same.
        userAgent: 'ces-harness (k6)',
      };

if (asScenario) http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));

// Made once, as the scenarios make theirs (scenarios/throughput.ts CALL_CHECKS).
const ACCEPTED_CHECK = { 'POST /tokens/health_check is answered 2xx (§4.2)': (ok: boolean) => ok };

export default function (): void {
  if (cfg === undefined) {
    http.post(url, null);
    return;
  }
  if (!asScenario) {
    healthCheck(cfg);
    return;
  }
  const outcome = withRetry(cfg, () => healthCheck(cfg));
  check(settle(outcome), ACCEPTED_CHECK);
  callDuration.add(outcome.costMs);
}

const scenarioSummary = cfg !== undefined ? summaryHandler('bench', cfg) : undefined;

/** src/k6/run.ts reads the summary back from CES_SUMMARY_FILE. */
export function handleSummary(data: Parameters<NonNullable<typeof scenarioSummary>>[0]): Record<string, string> {
  if (asScenario && scenarioSummary !== undefined) return scenarioSummary(data);
  const file = __ENV.CES_SUMMARY_FILE;
  return file ? { [file]: JSON.stringify(data) } : {};
}
