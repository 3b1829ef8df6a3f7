// report.html's "Since the last run": the changes, a strip of past verdicts, and one small trend
// chart per figure with its noise band shaded. Inline SVG only (the page loads nothing), coloured
// from the page's CSS like common/svg.ts's charts.

import type { Report } from '../../model.js';
import type { Change, TrendSeries, Trends } from './model.js';
import { html, joinHtml, type SafeHtml } from '../../common/safe-html.js';
import { KIND_LABEL, SINCE_TITLE, notComparedLines, sinceHeadline } from './words.js';
import { statusIcon } from '../../common/html-icons.js';
import { coord, formatTick, linear, niceScale } from '../../common/svg.js';

export const SINCE_CSS = `
.since .trends{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:8px 16px}
.since figure{margin:4px 0}
svg.trend{width:100%;height:auto;display:block}
.trend .band{fill:var(--c0);opacity:.15}
.trend .median{stroke:var(--c0);stroke-dasharray:3 3;opacity:.6}
.trend .line{stroke:var(--fg);stroke-width:1.5;fill:none}
.trend .now{fill:var(--fg)}.trend .now.out{fill:var(--fail)}
.trend text{fill:var(--muted);font:10px system-ui,sans-serif}
.strip{display:flex;gap:2px;flex-wrap:wrap;margin:8px 0}
.strip span{width:12px;height:18px;border-radius:2px;display:inline-block}
.strip .pass{background:var(--pass)}.strip .fail{background:var(--fail)}
`;

const W = 240;
const H = 80;
const PLOT = { left: 30, right: W - 6, top: 6, bottom: H - 14 };

export function trendChart(s: TrendSeries, index: number, flagged: boolean): SafeHtml {
  const points = s.values.map((v, i) => ({ i, v })).filter((p): p is { i: number; v: number } => p.v !== null);
  const top = Math.max(...points.map((p) => p.v), s.band?.high ?? 0);
  const scale = axisOf(Math.min(0, ...points.map((p) => p.v)), top);
  const x = linear(0, Math.max(1, s.values.length - 1), PLOT.left, PLOT.right);
  const y = linear(scale.min, scale.max, PLOT.bottom, PLOT.top);
  const band = s.band ? bandOf(s, s.band, scale, y) : null;
  const line = points.map((p) => `${coord(x(p.i))},${coord(y(p.v))}`).join(' ');
  const last = points[points.length - 1];
  const now =
    last &&
    html`<circle class="now${flagged ? ' out' : ''}" cx="${coord(x(last.i))}" cy="${coord(y(last.v))}" r="3"><title>this run: ${formatTick(Number(last.v.toPrecision(4)))}${s.unit ? ` ${s.unit}` : ''}</title></circle>`;
  const ticks = scale.ticks.map(
    (t) => html`<text x="${PLOT.left - 4}" y="${coord(y(t) + 3)}" text-anchor="end">${tickLabel(t)}</text>`,
  );
  const id = `trend-${index}`;
  const name = `${s.subject}: ${s.name}`;
  return html`<figure><svg class="trend" id="${id}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${id}-t"><title id="${id}-t">${name} over the last ${s.values.length} runs${s.unit ? ` (${s.unit})` : ''}</title>${band}${ticks}<polyline class="line" points="${line}"/>${now}<text x="${PLOT.left}" y="${H - 2}">${s.values.length} runs, oldest left</text></svg><figcaption>${name}${s.unit ? ` (${s.unit})` : ''}${flagged ? html` <strong class="bad">outside its band</strong>` : ''}</figcaption></figure>`;
}

/**
 * The band shaded behind the line, with its median. Bounding one side only (`s.side`), it is shaded
 * from its judged edge to the plot's far end, with no median: its runs measured the figure under
 * another condition, so only that edge says anything about this run.
 */
function bandOf(
  s: TrendSeries,
  band: NonNullable<TrendSeries['band']>,
  scale: { min: number; max: number },
  y: (v: number) => number,
): SafeHtml {
  const unit = s.unit ? ` ${s.unit}` : '';
  const [low, high] = [
    s.side === 'up' ? scale.min : Math.max(scale.min, band.low),
    s.side === 'down' ? scale.max : Math.min(scale.max, band.high),
  ];
  const title =
    s.side === 'down'
      ? `bound from below: under ${formatTick(Math.max(0, band.low))}${unit} is a change (${band.runs} runs); a rise is not compared`
      : s.side === 'up'
        ? `bound from above: over ${formatTick(band.high)}${unit} is a change (${band.runs} runs); a fall is not compared`
        : `noise band ${formatTick(low)}–${formatTick(band.high)}${unit} (${band.runs} runs)`;
  const rect = html`<rect class="band" x="${PLOT.left}" width="${coord(PLOT.right - PLOT.left)}" y="${coord(y(high))}" height="${coord(Math.max(0, y(low) - y(high)))}"><title>${title}</title></rect>`;
  if (s.side) return rect;
  return html`${rect}<line class="median" x1="${PLOT.left}" x2="${PLOT.right}" y1="${coord(y(band.median))}" y2="${coord(y(band.median))}"/>`;
}

/** The y axis from `low` (0, or below it for a figure that goes negative, such as a clock skew of
 * -1 s, which was drawn under the plot) to `top`, in nice steps. */
export function axisOf(low: number, top: number): { min: number; max: number; ticks: number[] } {
  if (low >= 0) {
    const { max, ticks } = niceScale(top, 2);
    return { min: 0, max, ticks };
  }
  const { step, max } = niceScale(top - low, 2);
  const min = -Math.ceil(-low / step - 1e-9) * step;
  const ticks: number[] = [];
  // At most four steps: top - min is below (top - low) + step, which niceScale split into two or so.
  for (let i = 0; i < 8 && (i === 0 || ticks[i - 1]! < top - 1e-9); i++)
    ticks.push(Number((min + i * step).toPrecision(12)));
  return { min, max: ticks[ticks.length - 1] ?? max, ticks };
}

/** A tick that fits the 30 px left of the plot: small figures (an error rate of 0.005) keep more
 * than formatTick's two decimals; from 10,000 on (a lifetime of 86,400 s) in thousands, which
 * would otherwise be cut to "0000". */
export function tickLabel(t: number): string {
  return Math.abs(t) >= 10_000 ? `${Number((t / 1000).toPrecision(3))}k` : String(Number(t.toPrecision(3)));
}

function verdictStrip(trends: Trends): SafeHtml {
  const marks = trends.verdicts.map(
    (v) => html`<span class="${v.verdict === 'pass' ? 'pass' : 'fail'}" title="${v.started_at}: ${v.verdict}"></span>`,
  );
  return html`<div class="strip" role="img" aria-label="verdicts of the last ${trends.verdicts.length} runs, oldest first: ${trends.verdicts.map((v) => v.verdict).join(', ')}">${joinHtml(marks)}</div>`;
}

// The marks as inline SVG, not the emoji of report.md, which headless Chromium and bare CI images
// draw as empty boxes.
const ACTION_MARK: Record<Change['action'], SafeHtml> = {
  fail: html`<span class="status st-fail">${statusIcon('fail')} fail</span>`,
  warn: html`<span class="status st-warn">${statusIcon('warn')} warn</span>`,
  info: html`<span class="status st-pass">${statusIcon('pass')} better</span>`,
};

export function sinceLastRunSection(report: Report): SafeHtml | null {
  const since = report.since_last_run;
  if (!since) return null;
  const flagged = new Set(since.changes.filter((c) => c.band).map((c) => `${c.subject}\n${c.name}`));
  const rows = since.changes.map(
    (c) => html`<tr><td>${ACTION_MARK[c.action]}</td><td>${KIND_LABEL[c.kind]}</td><td>${c.text}</td></tr>`,
  );
  const table = since.changes.length
    ? html`<div class="wrap"><table><thead><tr><th scope="col"></th><th scope="col">Kind</th><th scope="col">What changed</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : null;
  const trends = report.trends;
  const charts = trends?.series.map((s, i) => trendChart(s, i, flagged.has(`${s.subject}\n${s.name}`)));
  return html`<section id="since" class="since callout" aria-labelledby="since-h"><h2 id="since-h">${SINCE_TITLE}</h2>
<p>${sinceHeadline(since)}</p>${table}${notComparedLines(since).map((l) => html`<p class="muted">${l}</p>`)}${(since.warnings ?? []).map((w) => html`<p class="bad">${w}</p>`)}
${trends && html`<h3>Past verdicts</h3>${verdictStrip(trends)}`}
${charts?.length ? html`<h3>Trends</h3><div class="trends">${charts}</div>` : null}
${since.history !== 'none' && html`<p class="muted">${since.method}</p>`}</section>`;
}
