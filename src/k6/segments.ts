// Execution segments: one scenario split across N k6 processes, the way k6-operator splits a
// TestRun across its runner pods (each pod gets `--execution-segment i/N:(i+1)/N` and the same
// `--execution-segment-sequence`), and their summaries merged back into one. Pure: tested without k6.

import { isK6Summary, type K6Summary } from './summary.js';

type Metric = K6Summary['metrics'][string];

const NOT_A_COUNT = /(_ms|_s|rate|ratio|rps|p\d+)$/i;

/** The k6 arguments of process `index` (0-based) of `count`: an equal share of every executor. */
export function segmentArgs(index: number, count: number): string[] {
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`segment ${index} of ${count} does not exist`);
  }
  const at = (i: number) => (i === 0 ? '0' : i === count ? '1' : `${i}/${count}`);
  // The sequence is what makes the segments fit together exactly: with it, k6 hands each
  // iteration of a shared-iterations executor (and each VU) to exactly one segment, so the
  // segments' counts add up to what one process would have done.
  const sequence = Array.from({ length: count + 1 }, (_, i) => at(i)).join(',');
  return ['--execution-segment', `${at(index)}:${at(index + 1)}`, '--execution-segment-sequence', sequence];
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const max = (xs: number[]) => (xs.length ? Math.max(...xs) : 0);
const min = (xs: number[]) => (xs.length ? Math.min(...xs) : 0);

function mergeMetric(name: string, parts: Metric[]): Metric {
  const first = parts[0]!;
  const vals = (key: string) =>
    parts.map((p) => p.values[key]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  const values: Record<string, number> = {};
  switch (first.type) {
    case 'counter':
      // Parallel processes over the same wall-clock span: counts and per-second rates both add.
      values.count = sum(vals('count'));
      values.rate = sum(vals('rate'));
      break;
    case 'rate': {
      const passes = sum(vals('passes'));
      const fails = sum(vals('fails'));
      Object.assign(values, { passes, fails, rate: passes + fails === 0 ? 0 : passes / (passes + fails) });
      break;
    }
    case 'trend': {
      const counts = parts.map((p) => p.values.count ?? 0);
      const total = sum(counts);
      for (const key of new Set(parts.flatMap((p) => Object.keys(p.values)))) {
        if (key === 'count') values.count = total;
        else if (key === 'min') values.min = min(vals('min'));
        else if (key === 'max') values.max = max(vals('max'));
        else if (key === 'avg') {
          values.avg = total === 0 ? 0 : sum(parts.map((p, i) => (p.values.avg ?? 0) * counts[i]!)) / total;
        } else {
          // Percentiles (med, p(95), …) cannot be recomputed from per-process percentiles; the
          // largest is an upper bound of the merged one (a conservative report, never optimistic).
          values[key] = max(vals(key));
        }
      }
      break;
    }
    default:
      // Gauges: VUs held by parallel processes add up; any other gauge keeps the largest value.
      for (const key of new Set(parts.flatMap((p) => Object.keys(p.values)))) {
        values[key] = name === 'vus' || name === 'vus_max' ? sum(vals(key)) : max(vals(key));
      }
  }
  const merged: Metric = { ...first, values };
  const expressions = new Set(parts.flatMap((p) => Object.keys(p.thresholds ?? {})));
  if (expressions.size > 0) {
    // A threshold fails when it fails in any process, as k6-operator judges each runner pod on its
    // own. Note a threshold on an absolute count (count<N) is judged per process, not on the sum.
    merged.thresholds = Object.fromEntries(
      [...expressions].map((e) => [e, { ok: parts.every((p) => p.thresholds?.[e]?.ok !== false) }]),
    );
  }
  return merged;
}

/**
 * The summaries of the N segment processes of one bundle → one summary of the same shape, for
 * toLoadScenarioResult. Undefined when any process wrote none (a partial sum is not the run).
 */
export function mergeK6Summaries(summaries: readonly unknown[]): K6Summary | undefined {
  if (summaries.length === 0 || !summaries.every(isK6Summary)) return undefined;
  const parts = summaries as K6Summary[];
  const names = new Set(parts.flatMap((p) => Object.keys(p.metrics)));
  const metrics: K6Summary['metrics'] = {};
  for (const name of names) {
    const withIt = parts.map((p) => p.metrics[name]).filter((m): m is Metric => m !== undefined);
    metrics[name] = mergeMetric(name, withIt);
  }
  const first = parts[0]!;
  const extra: Record<string, number | string> = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries(p.ces?.extra ?? {})) {
      // The scenarios' own extra figures: counts add; times, rates and percentiles (by their name)
      // keep the largest, like the trends above; a string keeps the first process's value.
      const prev = extra[k];
      if (typeof v !== 'number' || typeof prev !== 'number') extra[k] = prev ?? v;
      else extra[k] = NOT_A_COUNT.test(k) ? Math.max(prev, v) : prev + v;
    }
  }
  const notes = [...new Set(parts.flatMap((p) => p.ces?.notes ?? []))];
  return {
    metrics,
    state: { testRunDurationMs: max(parts.map((p) => p.state?.testRunDurationMs ?? 0)) },
    ...(first.ces !== undefined && { ces: { ...first.ces, notes, extra } }),
  };
}
