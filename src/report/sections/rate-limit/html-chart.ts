// report.html's rate-limit chart: offered, accepted and limited requests per second over the
// probe, at the probe's own resolution, its phases shaded and named, with reference lines at the
// measured limit and the recommended rate. The numbers are in a table beside it, as given.

import { formatNumber } from '../../common/format.js';
import type { RateLimitResult } from '../../model.js';
import { perSecond, phaseBands, rateReferences, resolution } from './html-timeline.js';
import { html, type SafeHtml } from '../../common/safe-html.js';
import { legend, lineChart } from '../../common/svg.js';

const RATE_SERIES = [
  { key: 'offered', name: 'offered', tone: 0 },
  { key: 'accepted', name: 'accepted', tone: 2 },
  { key: 'limited', name: '429', tone: 5 },
] as const;

const seconds = (t: number): string =>
  formatNumber(t, Number.isInteger(t) ? 0 : Math.abs(t * 10 - Math.round(t * 10)) < 1e-9 ? 1 : 2);

export function rateLimitFigure(r: RateLimitResult): SafeHtml | null {
  const timeline = r.timeline ?? [];
  if (timeline.length === 0) return null;
  const rates = perSecond(timeline);
  const bands = phaseBands(timeline);
  const references = rateReferences(r);
  const step = resolution(timeline);
  // Named here too: a phase too narrow for its name on the chart may be drawn without it.
  const phases = bands.map((b) => `${b.label} ${seconds(b.from)}–${seconds(b.to)} s`).join(', ');
  const chart = lineChart({
    id: 'chart-rate-limit',
    title: `Offered, accepted and limited requests per second: ${r.endpoint}`,
    description:
      `${timeline.length} samples, one every ${seconds(step)} s` +
      (bands.length > 0 ? `; phases ${phases}` : '') +
      (references.length > 0 ? `; ${references.map((x) => x.label).join(', ')}` : ''),
    xLabel: 'seconds since the probe started',
    yLabel: 'requests/s',
    series: RATE_SERIES.map((s) => ({
      name: s.name,
      tone: s.tone,
      points: rates.map((p) => ({ x: p.t, y: p[s.key] })),
    })),
    references,
    bands,
  });
  const withPhase = timeline.some((p) => p.phase !== undefined);
  const rows = timeline.map(
    (p) =>
      html`<tr><td class="num">${seconds(p.t)}</td>${withPhase && html`<td>${p.phase ?? ''}</td>`}${RATE_SERIES.map((s) => html`<td class="num">${formatNumber(p[s.key])}</td>`)}</tr>`,
  );
  const keys = [...RATE_SERIES, ...references.map((x) => ({ name: x.label, tone: x.tone }))];
  return html`<figure>${chart}<figcaption>Rate-limit probe, requests per second every ${seconds(step)} s${bands.length > 0 && ', phases shaded'}${legend(keys)}${bands.length > 0 && html`<p class="phases">Phases: ${phases}</p>`}</figcaption></figure>
<details><summary>Rate-limit probe data</summary><table><thead><tr><th scope="col" class="num">t (s)</th>${withPhase && html`<th scope="col">phase</th>`}${RATE_SERIES.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}</tr></thead><tbody>${rows}</tbody></table></details>`;
}
