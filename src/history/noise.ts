// The noise band of a figure over the stored runs: median ± max(4 × 1.4826 × MAD, floors).
// Median and MAD (median absolute deviation) ignore the odd run that a busy machine slowed down,
// where a mean and standard deviation would widen (or flag) on it; 1.4826 × MAD estimates the
// standard deviation of normal noise, and 4 of them put a false alarm far in the tail even for the
// skewed, heavy-tailed latency of a shared 2-core machine. Pure: numbers in, a band out.

import type { NoiseBand } from '../report/sections/since/model.js';
import type { FigureRule } from './figures.js';

/** Fewer stored values than this judge nothing: a band of two runs is no band. */
export const MIN_RUNS = 3;
const K = 4;
const MAD_TO_SIGMA = 1.4826;

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function noiseBand(
  values: readonly number[],
  rule: Pick<FigureRule, 'absFloor' | 'relFloor'>,
): NoiseBand | undefined {
  if (values.length < MIN_RUNS) return undefined;
  const m = median(values);
  const mad = median(values.map((v) => Math.abs(v - m)));
  const half = Math.max(K * MAD_TO_SIGMA * mad, rule.relFloor * Math.abs(m), rule.absFloor);
  return { median: m, low: m - half, high: m + half, runs: values.length };
}

/** Which side of the band a value fell on, if it fell outside; only the side the rule calls worse counts. */
export function outside(value: number, band: NoiseBand, worse: FigureRule['worse']): 'up' | 'down' | undefined {
  if (value > band.high && worse !== 'down') return 'up';
  if (value < band.low && worse !== 'up') return 'down';
  return undefined;
}

export const METHOD =
  "figures are judged against the median ± 4 × 1.4826 × MAD of the stored runs (at least 3), never closer than each figure's floor; facts and check statuses against the last run that had them";
