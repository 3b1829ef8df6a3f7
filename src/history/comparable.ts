// Which stored values a figure of this run is judged against. Most figures: every stored run that
// measured it. A figure with a condition the machine sets (figures.ts: the count before the first
// 429 depends on the rate the burst reached) only against runs measured under a comparable one,
// and, when too few were, not judged at all but said to be "not compared", with why. Pure.

import type { NotCompared } from '../report/sections/since/model.js';
import { formatFigure, ruleFor } from './figures.js';
import { MIN_RUNS } from './noise.js';
import type { Observation } from './record.js';

export interface Comparable {
  /** The stored values the band rests on, oldest first. */
  values: number[];
  /** Set when enough runs measured the figure, but too few under a condition like this run's. */
  notCompared?: NotCompared;
}

const numberOf = (obs: readonly Observation[], subject: string, name: string): number | undefined => {
  const v = obs.find((p) => p.subject === subject && p.name === name)?.value;
  return typeof v === 'number' ? v : undefined;
};

/** `now`: this run's observations (o among them); `stored`: each stored run's, oldest first. */
export function comparableValues(
  o: Observation,
  now: readonly Observation[],
  stored: ReadonlyArray<readonly Observation[]>,
): Comparable {
  const rule = ruleFor(o.name);
  const measured = stored
    .map((obs) => ({ value: numberOf(obs, o.subject, o.name), obs }))
    .filter((m): m is { value: number; obs: readonly Observation[] } => m.value !== undefined);
  const condition = rule.condition;
  if (!condition) return { values: measured.map((m) => m.value) };
  const here = numberOf(now, o.subject, condition.name);
  const conditions = measured.map((m) => numberOf(m.obs, o.subject, condition.name));
  // A run that did not record its condition (a record of an older harness) is compared with none.
  const near = (c: number | undefined) =>
    here !== undefined &&
    c !== undefined &&
    here > 0 &&
    c > 0 &&
    Math.max(c, here) / Math.min(c, here) <= condition.within;
  const values = measured.filter((_, i) => near(conditions[i])).map((m) => m.value);
  if (values.length >= MIN_RUNS || measured.length < MIN_RUNS) return { values };
  const unit = ruleFor(condition.name).unit;
  const known = conditions.filter((c): c is number => c !== undefined);
  const [low, high] = [Math.min(...known), Math.max(...known)];
  const theirs = !known.length
    ? 'the stored runs did not record theirs'
    : `the stored runs' ${low === high ? formatFigure(low, unit) : `${formatFigure(low, '')}–${formatFigure(high, unit)}`}`;
  const unrecorded = measured.length - known.length;
  const text =
    `${o.subject}: ${o.name} ${formatFigure(o.value as number, rule.unit)} not compared: ` +
    `${condition.what} ${here === undefined ? 'a rate not recorded' : formatFigure(here, unit)}, ` +
    `and ${values.length} of the last ${measured.length} runs within ×${condition.within} of that (${MIN_RUNS} needed; ` +
    `${theirs}${known.length && unrecorded ? `, ${unrecorded} not recorded` : ''})`;
  return { values, notCompared: { subject: o.subject, name: o.name, text } };
}
