// The few summary figures several stages compute (the rate-limit estimate, the fleet simulator, the
// k6 timeline, the history's noise band, the benchmarks): one definition each, so two reports of "p95" or "2 decimals" never disagree.

/** `n` to `digits` decimals, as reports show their figures. */
export const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The nearest-rank percentile (`p` from 0 to 100) of unsorted values, or null when there are none.
 * Nearest rank, not interpolated: the figure is always a value that was observed.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** The median of unsorted values (the mean of the middle two for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
