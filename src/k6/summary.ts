// k6's end-of-test summary (what scenarios/lib/summary.ts writes from handleSummary: k6's default
// summary data plus a `ces` block) → one LoadScenarioResult of the report. Pure: tested against a
// committed summary from a real k6 run (test/k6/fixtures).

import type { LoadScenarioResult, ThresholdResult } from '../report/model.js';
import { K6_BUILTIN_METRICS } from './contract.js';

interface MetricData {
  type: string;
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

/** The shape k6 v2 passes to handleSummary (its default, "legacy" summary data), as read here. */
export interface K6Summary {
  metrics: Record<string, MetricData>;
  state?: { testRunDurationMs?: number };
  ces?: { scenario?: string; run_id?: string | null; notes?: string[]; extra?: Record<string, number | string> };
}

// k6's own metrics: summarised in the fixed fields, not repeated in `extra`.
const BUILTIN = new Set(K6_BUILTIN_METRICS);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isK6Summary(v: unknown): v is K6Summary {
  return isRecord(v) && isRecord(v.metrics) && Object.values(v.metrics).every((m) => isRecord(m) && isRecord(m.values));
}

/** Milliseconds, to the microsecond: enough for loopback latencies, short enough for a report. */
const ms = (n: number | undefined): number =>
  n === undefined || !Number.isFinite(n) ? 0 : Math.round(n * 1000) / 1000;
const ratio = (n: number | undefined): number =>
  n === undefined || !Number.isFinite(n) ? 0 : Math.round(n * 1e6) / 1e6;

function thresholdsOf(metrics: Record<string, MetricData>): ThresholdResult[] {
  const out: ThresholdResult[] = [];
  for (const [metric, data] of Object.entries(metrics)) {
    for (const [expression, t] of Object.entries(data.thresholds ?? {}))
      out.push({ metric, expression, ok: t.ok === true });
  }
  return out.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
}

/**
 * The scenario's own figures: custom metrics (counters as counts, rates as ratios, trends as
 * p50/p95 ms) and submetrics other than k6's automatic expected_response one.
 */
function extraOf(summary: K6Summary): Record<string, number | string> {
  const extra: Record<string, number | string> = {};
  for (const [name, data] of Object.entries(summary.metrics).sort(([a], [b]) => a.localeCompare(b))) {
    const base = name.split('{')[0] ?? name;
    if (BUILTIN.has(base) && (!name.includes('{') || name.includes('expected_response:true'))) continue;
    const v = data.values;
    if (data.type === 'counter') extra[name] = v.count ?? 0;
    else if (data.type === 'rate') extra[name] = ratio(v.rate);
    else if (data.type === 'trend') {
      extra[`${name} p50_ms`] = ms(v.med);
      extra[`${name} p95_ms`] = ms(v['p(95)']);
    }
  }
  Object.assign(extra, summary.ces?.extra ?? {});
  const notes = summary.ces?.notes ?? [];
  if (notes.length > 0) extra.notes = notes.join('; ');
  return extra;
}

/** How many requests k6 counted (http_reqs), or undefined when there is no summary to say. */
export const requestsOf = (summaryJson: unknown): number | undefined =>
  isK6Summary(summaryJson) ? (summaryJson.metrics.http_reqs?.values.count ?? 0) : undefined;

export function toLoadScenarioResult(name: string, summaryJson: unknown): LoadScenarioResult {
  if (!isK6Summary(summaryJson)) {
    return {
      scenario: name,
      requests: 0,
      rate_per_s: 0,
      latency_ms: { p50: 0, p95: 0, p99: 0, max: 0 },
      error_rate: 0,
      checks: { passed: 0, failed: 0 },
      thresholds: [],
      dropped_iterations: 0,
      error: 'k6 wrote no summary (see its output above the report)',
    };
  }
  const m = summaryJson.metrics;
  const reqs = m.http_reqs?.values;
  const dur = m.http_req_duration?.values;
  const checks = m.checks?.values;
  return {
    scenario: name,
    requests: reqs?.count ?? 0,
    rate_per_s: Math.round((reqs?.rate ?? 0) * 100) / 100,
    latency_ms: {
      p50: ms(dur?.med),
      p95: ms(dur?.['p(95)']),
      p99: ms(dur?.['p(99)']),
      max: ms(dur?.max),
      avg: ms(dur?.avg),
    },
    error_rate: ratio(m.http_req_failed?.values.rate),
    checks: { passed: checks?.passes ?? 0, failed: checks?.fails ?? 0 },
    thresholds: thresholdsOf(m),
    dropped_iterations: m.dropped_iterations?.values.count ?? 0,
    extra: extraOf(summaryJson),
  };
}

/**
 * One named scenario made of several k6 runs (tls: the negotiation run and the TLS 1.2 probe).
 * Counts add up; latency is the first part's (the probe's refused handshakes have none worth
 * showing); the error rate is weighted by requests.
 */
export function mergeLoadScenarioResults(name: string, parts: LoadScenarioResult[]): LoadScenarioResult {
  const [first] = parts;
  if (first === undefined) throw new Error(`no k6 runs to merge for ${name}`);
  if (parts.length === 1) return { ...first, scenario: name };
  const requests = parts.reduce((n, p) => n + p.requests, 0);
  // The parts ran one after another: the rate over the whole is all requests over all their time.
  const seconds = parts.reduce((n, p) => n + (p.rate_per_s > 0 ? p.requests / p.rate_per_s : 0), 0);
  const errors = parts.map((p) => p.error).filter((e): e is string => e !== undefined);
  const merged: LoadScenarioResult = {
    scenario: name,
    requests,
    rate_per_s: seconds > 0 ? Math.round((requests / seconds) * 100) / 100 : 0,
    latency_ms: first.latency_ms,
    error_rate: requests === 0 ? 0 : ratio(parts.reduce((n, p) => n + p.error_rate * p.requests, 0) / requests),
    checks: {
      passed: parts.reduce((n, p) => n + p.checks.passed, 0),
      failed: parts.reduce((n, p) => n + p.checks.failed, 0),
    },
    // Prefixed with the part's name so `checks rate==1` of each run stays distinguishable.
    thresholds: parts.flatMap((p) =>
      p.thresholds.map((t) => (p === first ? t : { ...t, metric: `${p.scenario}: ${t.metric}` })),
    ),
    dropped_iterations: parts.reduce((n, p) => n + p.dropped_iterations, 0),
    extra: Object.assign({}, ...parts.map((p) => (p === first ? p.extra : prefixKeys(p.scenario, p.extra ?? {})))),
    // The first part is the scenario's load (tls: the negotiation run, not the TLS 1.2 probe).
    ...(first.timeline !== undefined && { timeline: first.timeline }),
    ...(parts.some((p) => p.dashboards) && { dashboards: parts.flatMap((p) => p.dashboards ?? []) }),
  };
  if (errors.length > 0) merged.error = errors.join('; ');
  return merged;
}

const prefixKeys = (prefix: string, o: Record<string, number | string>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}: ${k}`, v]));

/** A scenario passed when k6 ran to the end and every threshold held. */
export const scenarioOk = (r: LoadScenarioResult): boolean => r.error === undefined && r.thresholds.every((t) => t.ok);
