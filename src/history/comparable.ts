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
  /**
   * Set when the values bound this run's figure on one side only (runs under a condition further
   * up or down, FigureRule.condition.falls): the only way a change is judged. Unset: rule.worse.
   */
  side?: 'up' | 'down';
  /** Which runs the band rests on, when not simply the last ones: "offered faster (200/s)". */
  basis?: string;
  /** Set when enough runs measured the figure, but too few under a condition like this run's. */
  notCompared?: NotCompared;
}

const numberOf = (obs: readonly Observation[], subject: string, name: string): number | undefined => {
  const v = obs.find((p) => p.subject === subject && p.name === name)?.value;
  return typeof v === 'number' ? v : undefined;
};

/**
 * Whether two measurements' conditions are alike enough to compare the figure: both recorded, both
 * positive, within ×`within` of each other. A side that did not record its condition (a record of
 * an older harness) is compared with none.
 */
export const conditionsNear = (within: number, a: number | undefined, b: number | undefined): boolean =>
  a !== undefined && b !== undefined && a > 0 && b > 0 && Math.max(a, b) / Math.min(a, b) <= within;

/**
 * The same rule between two sides measured once each (cutover's production and sandbox): why the
 * figure `name` is not compared, "not compared: offered 196 vs 69 req/s", or undefined when it is
 * (it has no condition, or both conditions are alike). `a` and `b` read each side's figures.
 */
export function notComparedBetween(
  name: string,
  a: (figure: string) => number | undefined,
  b: (figure: string) => number | undefined,
): string | undefined {
  const condition = ruleFor(name).condition;
  if (!condition) return undefined;
  // Both sides are of one run, measured alike (`requires` sets apart runs of older harnesses).
  const [x, y] = [a(condition.name), b(condition.name)];
  if (conditionsNear(condition.within, x, y)) return undefined;
  const unit = ruleFor(condition.name).unit === '/s' ? ' req/s' : ` ${ruleFor(condition.name).unit}`;
  const pair =
    x !== undefined && y !== undefined
      ? `${formatFigure(x, '')} vs ${formatFigure(y, '')}${unit}`
      : `${x === undefined ? 'a rate not recorded' : formatFigure(x, '') + unit} vs ${y === undefined ? 'a rate not recorded' : formatFigure(y, '') + unit}`;
  return `not compared: ${condition.short} ${pair} (compared only within ×${condition.within})`;
}

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
  // A run that did not record how it measured (`requires`) has no condition alike to any.
  const conditionOf = (obs: readonly Observation[]) =>
    condition.requires && numberOf(obs, o.subject, condition.requires.name) === undefined
      ? undefined
      : numberOf(obs, o.subject, condition.name);
  const here = conditionOf(now);
  const conditions = measured.map((m) => conditionOf(m.obs));
  const values = measured.filter((_, i) => conditionsNear(condition.within, here, conditions[i])).map((m) => m.value);
  if (values.length >= MIN_RUNS || measured.length < MIN_RUNS) return { values };
  const unit = ruleFor(condition.name).unit;
  const known = conditions.filter((c): c is number => c !== undefined);
  const theirs = !known.length
    ? condition.requires
      ? `every one ${condition.requires.missing}`
      : 'the stored runs did not record theirs'
    : `the stored runs' ${rangeOf(known, unit)}`;
  const unrecorded = measured.length - known.length;
  const notRecorded = condition.requires?.missing ?? 'not recorded';
  const why =
    `${condition.what} ${here === undefined ? 'a rate not recorded' : formatFigure(here, unit)}, ` +
    `and ${values.length} of the last ${measured.length} runs within ×${condition.within} of that (${MIN_RUNS} needed; ` +
    `${theirs}${known.length && unrecorded ? `, ${unrecorded} ${notRecorded}` : ''})`;
  const figure = `${o.subject}: ${o.name} ${formatFigure(o.value as number, rule.unit)}`;
  const bound =
    condition.falls && here !== undefined ? oneSided(measured, conditions, here, unit, condition.short) : undefined;
  if (!bound)
    return { values, notCompared: { subject: o.subject, name: o.name, text: `${figure} not compared: ${why}` } };
  const [judged, unjudged, from] = bound.side === 'down' ? ['fall', 'rise', 'below'] : ['rise', 'fall', 'above'];
  const text = `${figure} judged for a ${judged} only: ${why}; the ${bound.values.length} runs ${bound.basis} bound it from ${from}, so a ${unjudged} is not compared`;
  return { ...bound, notCompared: { subject: o.subject, name: o.name, text } };
}

/**
 * For a figure that never rises as its condition does: the stored runs under a condition at least
 * this run's bound its figure from below (a fall past them is a change whatever the rates), those
 * under one at most this run's from above. The side with enough runs, the lower bound first (a
 * shrunk limit is the change a slowed machine would otherwise hide), or none.
 */
function oneSided(
  measured: ReadonlyArray<{ value: number }>,
  conditions: ReadonlyArray<number | undefined>,
  here: number,
  unit: string,
  short: string,
): Required<Pick<Comparable, 'values' | 'side' | 'basis'>> | undefined {
  const sides = [
    { side: 'down' as const, at: (c: number) => c >= here, how: 'faster' },
    { side: 'up' as const, at: (c: number) => c <= here, how: 'slower' },
  ];
  for (const { side, at, how } of sides) {
    const picked = measured.filter((_, i) => conditions[i] !== undefined && at(conditions[i]!));
    if (picked.length < MIN_RUNS) continue;
    const theirs = conditions.filter((c): c is number => c !== undefined && at(c));
    return { values: picked.map((m) => m.value), side, basis: `${short} ${how} (${rangeOf(theirs, unit)})` };
  }
  return undefined;
}

/** The stored runs' conditions as a range, "47.6–200/s", or the one value they share. */
function rangeOf(values: readonly number[], unit: string): string {
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return low === high ? formatFigure(low, unit) : `${formatFigure(low, '')}–${formatFigure(high, unit)}`;
}
