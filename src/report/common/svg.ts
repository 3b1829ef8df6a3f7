// Small, dependency-free SVG charts for the HTML report. Pure functions of their data: no DOM, no
// measuring text, no randomness. Colours come from the page's CSS through `currentColor` and the
// `c<n>` tone classes, so light and dark themes need no second set of charts.

import { html, joinHtml, type SafeHtml } from './safe-html.js';
import { placeBandLabels, type LabelPlace } from './svg-band-labels.js';

export interface Point {
  x: number;
  y: number;
}

export interface Series {
  name: string;
  points: readonly Point[];
  /** Colour slot (class `c<n>`); defaults to the series' position. */
  tone?: number;
}

export interface LineChartSpec {
  /** Unique within the page: the title and description are referenced by id. */
  id: string;
  title: string;
  description: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Horizontal dashed lines at given y values (a measured limit, a recommended rate), labelled at the right. */
  references?: readonly ReferenceLine[];
  /** Shaded spans of x (the phases of a probe), labelled at the top. */
  bands?: readonly Band[];
}

export interface ReferenceLine {
  label: string;
  value: number;
  tone?: number;
}

export interface Band {
  label: string;
  from: number;
  to: number;
}

export interface BarGroup {
  label: string;
  values: readonly number[];
}

export interface BarChartSpec {
  id: string;
  title: string;
  description: string;
  yLabel: string;
  /** Appended to a value in a bar's tooltip, e.g. " ms". */
  unit: string;
  seriesNames: readonly string[];
  groups: readonly BarGroup[];
  /** Colour slot of each series (class `c<n>`); defaults to the series' position. */
  tones?: readonly number[];
  /** Writes each bar's value above it: for a few bars of very different heights, where a short one would read as zero. */
  valueLabels?: boolean;
}

const WIDTH = 640;
const HEIGHT = 240;
const PLOT = { left: 56, right: WIDTH - 16, top: 16, bottom: HEIGHT - 44 };
const TONES = 6;

export const finite = (n: number): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

/** One decimal is finer than a pixel; fewer digits keep the file small and the output stable. */
export const coord = (n: number): string => String(Math.round(finite(n) * 10) / 10 || 0);

export const toneClass = (tone: number): string => `c${((Math.trunc(finite(tone)) % TONES) + TONES) % TONES}`;

export interface NiceScale {
  max: number;
  step: number;
  ticks: number[];
}

const NICE_STEPS = [1, 2, 2.5, 5, 10];
// Time axes count whole seconds; 2.5 s ticks would read as odd.
const TIME_STEPS = [1, 2, 5, 10];

/** An axis from 0 to a round number at or above `max`; a zero, negative or NaN max becomes 1. */
export function niceScale(max: number, count = 4, niceSteps: readonly number[] = NICE_STEPS): NiceScale {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = top / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const step = (niceSteps.find((s) => norm <= s) ?? 10) * magnitude;
  // The epsilon keeps 0.3 / 0.1 = 2.9999… from costing an extra, empty tick.
  const intervals = Math.max(1, Math.ceil(top / step - 1e-9));
  const ticks = Array.from({ length: intervals + 1 }, (_, i) => Number((i * step).toPrecision(12)));
  return { max: ticks[ticks.length - 1] ?? top, step, ticks };
}

/** Maps [d0, d1] onto [r0, r1]; a zero-width domain (one point) maps to the middle instead of dividing by zero. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0;
  if (!(span > 0) || !Number.isFinite(span)) {
    const middle = (r0 + r1) / 2;
    return () => middle;
  }
  return (v) => r0 + ((finite(v) - d0) / span) * (r1 - r0);
}

export function formatTick(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(2)));
}

function extent(values: readonly number[]): [number, number] {
  // A loop, not Math.min(...values): long timelines would overflow the argument stack.
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    const f = finite(v);
    if (f < lo) lo = f;
    if (f > hi) hi = f;
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

function truncate(label: string, maxChars: number): string {
  return label.length <= maxChars ? label : `${label.slice(0, Math.max(1, maxChars - 1))}…`;
}

function frame(id: string, title: string, description: string, body: SafeHtml): SafeHtml {
  return html`<svg class="chart" id="${id}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc"><title id="${id}-title">${title}</title><desc id="${id}-desc">${description}</desc>${body}</svg>`;
}

function emptyChart(id: string, title: string, description: string): SafeHtml {
  return frame(
    id,
    title,
    description,
    html`<text class="empty" x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no data</text>`,
  );
}

function yAxis(scale: NiceScale, y: (v: number) => number, label: string): SafeHtml {
  const lines = scale.ticks.map(
    (t) =>
      html`<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${coord(y(t))}" y2="${coord(y(t))}"/><text x="${PLOT.left - 6}" y="${coord(y(t) + 4)}" text-anchor="end">${formatTick(t)}</text>`,
  );
  const middle = coord((PLOT.top + PLOT.bottom) / 2);
  return html`<g class="grid">${lines}</g><text class="axis-label" x="14" y="${middle}" text-anchor="middle" transform="rotate(-90 14 ${middle})">${label}</text>`;
}

function xAxisLine(label: string): SafeHtml {
  const text =
    label !== '' &&
    html`<text class="axis-label" x="${coord((PLOT.left + PLOT.right) / 2)}" y="${HEIGHT - 6}" text-anchor="middle">${label}</text>`;
  return html`<line class="axis" x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}"/>${text}`;
}

function xTicks(lo: number, hi: number): number[] {
  if (hi <= lo) return [lo];
  return niceScale(hi - lo, 6, TIME_STEPS)
    .ticks.map((t) => Number((lo + t).toPrecision(12)))
    .filter((t) => t <= hi + 1e-9);
}

function polyline(series: Series, index: number, x: (v: number) => number, y: (v: number) => number): SafeHtml {
  const points = series.points.map((p) => `${coord(x(p.x))},${coord(y(p.y))}`).join(' ');
  const tone = toneClass(series.tone ?? index);
  // A polyline of one point draws nothing, so a lone sample gets a dot to stay visible.
  const only = series.points.length === 1 ? series.points[0] : undefined;
  const dot = only
    ? html`<circle class="dot ${tone}" cx="${coord(x(only.x))}" cy="${coord(y(only.y))}" r="3" fill="currentColor"/>`
    : null;
  return html`<polyline class="line ${tone}" fill="none" stroke="currentColor" data-series="${series.name}" data-points="${series.points.length}" points="${points}"><title>${series.name}</title></polyline>${dot}`;
}

function referenceLine(r: ReferenceLine, index: number, y: (v: number) => number): SafeHtml {
  const at = coord(y(r.value));
  // Labels of close references would overlap at the right edge; every other one sits below its line.
  const labelY = coord(y(r.value) + (index % 2 === 0 ? -4 : 12));
  return html`<g class="reference ${toneClass(r.tone ?? index)}" data-reference="${r.label}" data-value="${r.value}"><line x1="${PLOT.left}" x2="${PLOT.right}" y1="${at}" y2="${at}" stroke="currentColor" stroke-dasharray="6 4"/><text x="${PLOT.right - 4}" y="${labelY}" text-anchor="end">${r.label}</text></g>`;
}

function band(b: Band, index: number, x: (v: number) => number, place: LabelPlace): SafeHtml {
  const from = x(b.from);
  const width = Math.max(1, x(b.to) - from);
  // Rows 14 px apart: an 11 px line of text is under 13 px tall, so names on two rows never touch.
  const label = place && html`<text x="${coord(place.x)}" y="${PLOT.top + 10 + 14 * place.row}">${b.label}</text>`;
  return html`<g class="band band-${index % 2}" data-phase="${b.label}"><title>${b.label}</title><rect x="${coord(from)}" y="${PLOT.top}" width="${coord(width)}" height="${PLOT.bottom - PLOT.top}"/>${label}</g>`;
}

export function lineChart(spec: LineChartSpec): SafeHtml {
  const all = spec.series.flatMap((s) => s.points);
  if (all.length === 0) return emptyChart(spec.id, spec.title, spec.description);
  const references = spec.references ?? [];
  // A band runs to the end of its last sample, past that sample's x: the axis must reach it too.
  const bands = spec.bands ?? [];
  const [xLo, xHi] = extent([...all.map((p) => p.x), ...bands.flatMap((b) => [b.from, b.to])]);
  // The references are on the scale too: a limit above every sample must still show.
  const [, yHi] = extent([...all.map((p) => p.y), ...references.map((r) => r.value)]);
  const scale = niceScale(yHi);
  const x = linear(xLo, xHi, PLOT.left, PLOT.right);
  const y = linear(0, scale.max, PLOT.bottom, PLOT.top);
  const ticks = xTicks(xLo, xHi).map(
    (t) => html`<text x="${coord(x(t))}" y="${PLOT.bottom + 16}" text-anchor="middle">${formatTick(t)}</text>`,
  );
  const lines = spec.series.map((s, i) => polyline(s, i, x, y));
  const places = placeBandLabels(
    bands.map((b) => ({ label: b.label, from: x(b.from), to: x(b.to) })),
    PLOT,
  );
  return frame(
    spec.id,
    spec.title,
    spec.description,
    html`${bands.map((b, i) => band(b, i, x, places[i] ?? null))}${yAxis(scale, y, spec.yLabel)}${xAxisLine(spec.xLabel)}<g class="ticks">${ticks}</g><g class="series">${lines}</g>${references.map((r, i) => referenceLine(r, i, y))}`,
  );
}

export function barChart(spec: BarChartSpec): SafeHtml {
  const bars = Math.max(1, spec.seriesNames.length);
  if (spec.groups.length === 0) return emptyChart(spec.id, spec.title, spec.description);
  const [, hi] = extent(spec.groups.flatMap((g) => g.values));
  const scale = niceScale(hi);
  const y = linear(0, scale.max, PLOT.bottom, PLOT.top);
  const groupWidth = (PLOT.right - PLOT.left) / spec.groups.length;
  const barWidth = (groupWidth * 0.7) / bars;
  // Roughly 6.5 px per character at the 11 px label size; the full name stays in the tooltip.
  const maxChars = Math.max(3, Math.floor(groupWidth / 6.5));
  const groups = spec.groups.map((g, gi) => {
    const start = PLOT.left + gi * groupWidth + groupWidth * 0.15;
    const rects = g.values.map((v, bi) => {
      const top = y(Math.max(0, finite(v)));
      return html`<rect class="bar ${toneClass(spec.tones?.[bi] ?? bi)}" fill="currentColor" x="${coord(start + bi * barWidth)}" y="${coord(top)}" width="${coord(Math.max(1, barWidth - 2))}" height="${coord(PLOT.bottom - top)}"><title>${g.label} ${spec.seriesNames[bi] ?? ''}: ${formatTick(Number(finite(v).toFixed(2)))}${spec.unit}</title></rect>`;
    });
    const values = spec.valueLabels
      ? g.values.map(
          (v, bi) =>
            html`<text class="value" x="${coord(start + bi * barWidth + barWidth / 2 - 1)}" y="${coord(y(Math.max(0, finite(v))) - 4)}" text-anchor="middle">${formatTick(Number(finite(v).toFixed(1)))}${spec.unit}</text>`,
        )
      : [];
    const labelX = coord(PLOT.left + gi * groupWidth + groupWidth / 2);
    return html`<g class="group"><title>${g.label}</title>${rects}${values}<text x="${labelX}" y="${PLOT.bottom + 16}" text-anchor="middle">${truncate(g.label, maxChars)}</text></g>`;
  });
  return frame(spec.id, spec.title, spec.description, html`${yAxis(scale, y, spec.yLabel)}${xAxisLine('')}${groups}`);
}

/** The key for a chart, as HTML beside it: real text, so it reads without the SVG. */
export function legend(entries: ReadonlyArray<{ name: string; tone?: number }>): SafeHtml {
  const items = entries.map(
    (e, i) => html`<li><span class="swatch ${toneClass(e.tone ?? i)}" aria-hidden="true"></span>${e.name}</li>`,
  );
  return html`<ul class="legend">${joinHtml(items)}</ul>`;
}
