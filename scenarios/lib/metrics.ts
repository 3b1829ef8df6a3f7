// Custom metrics, created through these helpers so each scenario knows which metric names it
// defines: threshold overrides (CES_THRESHOLDS_JSON) are shared by every scenario of a run, and an
// override for a metric a scenario does not have would make k6 refuse to start it.
// k6 only allows creating metrics in the init context, i.e. at module top level.

import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import { K6_BUILTIN_METRICS } from '../../src/k6/contract.js';

const defined = new Set<string>();

export function counter(name: string): Counter {
  defined.add(name);
  return new Counter(name);
}

/** What a tally takes: a count to add, as a Counter's add. */
export interface Tally {
  add(n: number): void;
}

/**
 * A counter that records a sample only when it counts something, and one zero first in each VU, so
 * that its count is in k6's summary as 0 whether or not a threshold names it. k6 pays for every
 * sample: a zero added by every call (a call not lost, no server error) cost the bench's
 * scenario-shaped health_check about 5 µs of k6's CPU a request, 5 % (npm run bench -- load).
 */
export function tally(name: string): Tally {
  const made = counter(name);
  let recorded = false;
  return {
    add(n: number): void {
      if (n === 0 && recorded) return;
      made.add(n);
      recorded = true;
    },
  };
}

export function gauge(name: string): Gauge {
  defined.add(name);
  return new Gauge(name);
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

/** Whether `metric` (possibly with a `{tag:value}` selector) names a metric this scenario has. */
export function isKnownMetric(metric: string): boolean {
  const base = metric.split('{')[0]?.trim() ?? '';
  return defined.has(base) || K6_BUILTIN_METRICS.includes(base);
}
