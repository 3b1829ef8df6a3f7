// The figures of the stored runs and this one, per figure, for report.html's small charts; and the
// verdicts, for its strip of past runs. Pure: records in, series out.

import type { Trends, TrendSeries } from '../report/sections/since/model.js';
import { comparableValues } from './comparable.js';
import { ruleFor } from './figures.js';
import { noiseBand } from './noise.js';
import { observations, type HistoryRecord } from './record.js';

/** Charts past this many stop telling a reader anything; the window is what was judged anyway. */
const MAX_POINTS = 60;

export function trendsOf(current: HistoryRecord, past: readonly HistoryRecord[], runs: number): Trends {
  const shown = [...past.slice(-(MAX_POINTS - 1)), current];
  const perRun = shown.map(observations);
  const now = perRun[perRun.length - 1]!;
  // The band the comparison used: the last `runs` stored runs, under a condition like this run's.
  const judged = perRun.slice(0, -1).slice(-runs);
  const series: TrendSeries[] = [];
  for (const o of now) {
    if (typeof o.value !== 'number') continue;
    const values = perRun.map((obs) => {
      const v = obs.find((p) => p.subject === o.subject && p.name === o.name)?.value;
      return typeof v === 'number' ? v : null;
    });
    const rule = ruleFor(o.name);
    // A run's condition (the rate a burst reached) is charted without a band: it is not judged.
    const comparable = rule.context ? undefined : comparableValues(o, now, judged);
    const band = comparable && noiseBand(comparable.values, rule);
    series.push({
      kind: rule.kind,
      subject: o.subject,
      name: o.name,
      unit: rule.unit,
      values,
      ...(band ? { band } : {}),
      ...(band && comparable?.side ? { side: comparable.side } : {}),
    });
  }
  return { verdicts: shown.map((r) => ({ started_at: r.started_at, verdict: r.verdict })), series };
}
