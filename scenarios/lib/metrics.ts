// Custom metrics, created through these helpers so each scenario knows which metric names it
// defines: threshold overrides (CES_THRESHOLDS_JSON) are shared by every scenario of a run, and an
// override for a metric a scenario does not have would make k6 refuse to start it.
// k6 only allows creating metrics in the init context, i.e. at module top level.

import { Counter, Rate, Trend } from 'k6/metrics';

const defined = new Set<string>();

export function counter(name: string): Counter {
  defined.add(name);
  return new Counter(name);
}

export function rate(name: string): Rate {
  defined.add(name);
  return new Rate(name);
}

/** Trends here are all durations in milliseconds (isTime), so k6 prints and exports them as such. */
export function timeTrend(name: string): Trend {
  defined.add(name);
  return new Trend(name, true);
}

/** k6's built-in metrics (HTTP and execution), which every scenario may put thresholds on. */
export const BUILTIN_METRICS = [
  'checks',
  'data_received',
  'data_sent',
  'dropped_iterations',
  'http_req_blocked',
  'http_req_connecting',
  'http_req_duration',
  'http_req_failed',
  'http_req_receiving',
  'http_req_sending',
  'http_req_tls_handshaking',
  'http_req_waiting',
  'http_reqs',
  'iteration_duration',
  'iterations',
  'vus',
  'vus_max',
] as const;

/** Whether `metric` (possibly with a `{tag:value}` selector) names a metric this scenario has. */
export function isKnownMetric(metric: string): boolean {
  const base = metric.split('{')[0]?.trim() ?? '';
  return defined.has(base) || (BUILTIN_METRICS as readonly string[]).includes(base);
}
