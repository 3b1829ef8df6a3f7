// Numbers and tables for `npm run bench`: summarising repeated timings and rendering sections as
// plain text. Pure functions; only bench/main.ts writes to the terminal.

import { median } from '../src/toolkit/stats.js';

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
  /** The first sample: a cold run (JIT, lazy imports, calibrations) shows here and not in the median. */
  first: number;
}

export { median };

export function summarize(xs: readonly number[]): Summary {
  return { n: xs.length, median: median(xs), min: Math.min(...xs), max: Math.max(...xs), first: xs[0] ?? Number.NaN };
}

/** The `top` checks with the longest median duration over the runs. */
export function slowest(
  runs: ReadonlyArray<ReadonlyArray<{ id: string; ms: number }>>,
  top: number,
): Array<{ id: string; ms: number }> {
  const byId = new Map<string, number[]>();
  for (const run of runs) for (const d of run) byId.set(d.id, [...(byId.get(d.id) ?? []), d.ms]);
  return [...byId]
    .map(([id, xs]) => ({ id, ms: median(xs) }))
    .sort((x, y) => y.ms - x.ms)
    .slice(0, top);
}

/** "0.82 s" or "412 ms": seconds from one second up, so a column reads at a glance. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '-';
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`;
}

export function rate(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '-';
  return `${Math.round(x).toLocaleString('en-US')}/s`;
}

/** a / b as "0.42×"; "-" when either side is missing. */
export function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '-';
  return `${(a / b).toFixed(a / b >= 10 ? 1 : 2)}×`;
}

export function cores(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(2);
}

/** One block of the bench output: a titled table and the notes that say how to read it. */
export interface Section {
  title: string;
  headers: string[];
  rows: string[][];
  notes: string[];
}

/** Left-aligned text columns, right-aligned number-like columns, a rule under the header. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const width = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[-\d.,]+(?:\s?(?:ms|s|×|\/s|%))?$|^-$/.test(r[i] ?? '-')),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(width[i]!) : c.padEnd(width[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), width.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function renderSection(s: Section): string {
  const parts = [`## ${s.title}`, ''];
  if (s.rows.length > 0) parts.push(renderTable(s.headers, s.rows), '');
  for (const n of s.notes) parts.push(`  ${n}`);
  return `${parts.join('\n').trimEnd()}\n`;
}
