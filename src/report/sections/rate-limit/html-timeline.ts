// The rate-limit probe's timeline as the chart draws it, at whatever resolution the probe sampled
// (1 s, 100 ms…): each point counts the requests of the interval from its t to the next point's t,
// so dividing by that interval gives requests per second, and the measured limit and the
// recommended rate (per second) can be drawn on the same axis as reference lines.

import { formatRate } from '../../common/format.js';
import type { RateLimitResult } from '../../model.js';
import type { Band, ReferenceLine } from '../../common/svg.js';

export type RatePoint = NonNullable<RateLimitResult['timeline']>[number];

export interface PerSecond {
  t: number;
  offered: number;
  accepted: number;
  limited: number;
}

/** The interval each point covers, s: to the next point, the last one as long as the one before (1 s alone). */
export function intervals(points: readonly RatePoint[]): number[] {
  return points.map((p, i) => {
    const next = points[i + 1];
    const prev = points[i - 1];
    const width = next !== undefined ? next.t - p.t : prev !== undefined ? p.t - prev.t : 1;
    return width > 0 && Number.isFinite(width) ? width : 1;
  });
}

/** The timeline in requests per second. */
export function perSecond(points: readonly RatePoint[]): PerSecond[] {
  const widths = intervals(points);
  return points.map((p, i) => {
    const w = widths[i] ?? 1;
    return { t: p.t, offered: p.offered / w, accepted: p.accepted / w, limited: p.limited / w };
  });
}

/** The sampling interval, s, as the points show it most often (for the chart's description). */
export function resolution(points: readonly RatePoint[]): number {
  const counts = new Map<number, number>();
  for (const w of intervals(points))
    counts.set(Math.round(w * 1000) / 1000, (counts.get(Math.round(w * 1000) / 1000) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 1;
}

/** Runs of points in one phase, as shaded spans of the time axis; points without a phase make none. */
export function phaseBands(points: readonly RatePoint[]): Band[] {
  const widths = intervals(points);
  const bands: Band[] = [];
  points.forEach((p, i) => {
    if (p.phase === undefined || p.phase === '') return;
    const end = p.t + (widths[i] ?? 1);
    const last = bands[bands.length - 1];
    if (last !== undefined && last.label === p.phase && Math.abs(last.to - p.t) < 1e-9) last.to = end;
    else bands.push({ label: p.phase, from: p.t, to: end });
  });
  return bands;
}

/** What an SRE compares the curves with: the limit the probe measured and the rate it recommends (tones no curve uses). */
export function rateReferences(r: RateLimitResult): ReferenceLine[] {
  const out: ReferenceLine[] = [];
  if (r.sustained_rps !== null && r.sustained_rps > 0)
    out.push({
      label: `${r.sustained_held ? 'highest rate k6 rounds held' : !r.sustained_announced ? 'measured limit' : r.sustained_announced.agrees === false ? 'announced limit (disagreeing)' : 'announced limit (not proven)'} ${formatRate(r.sustained_rps)}`,
      value: r.sustained_rps,
      tone: 3,
    });
  const target = r.recommendation?.target_rps;
  if (target !== undefined && target > 0)
    out.push({ label: `recommended ${formatRate(target)}`, value: target, tone: 4 });
  return out;
}
