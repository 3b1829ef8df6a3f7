// report.html's Rate limit section: the recommendation first (what to configure), then the facts
// it rests on, the probe's notes, and the per-second chart of offered, accepted and 429 requests.

import { formatNumber, proofText, rateLimitFacts, recommendationText } from './format.js';
import { fleetSection } from './html-fleet.js';
import { rich } from './html-rich.js';
import type { RateLimitResult } from './model.js';
import { type SafeHtml, html } from './safe-html.js';
import { legend, lineChart } from './svg.js';

const RATE_SERIES = [
  { key: 'offered', name: 'offered', tone: 0 },
  { key: 'accepted', name: 'accepted', tone: 2 },
  { key: 'limited', name: '429', tone: 5 },
] as const;

function rateLimitFigure(r: RateLimitResult): SafeHtml | null {
  const timeline = r.timeline ?? [];
  if (timeline.length === 0) return null;
  const chart = lineChart({
    id: 'chart-rate-limit',
    title: `Offered, accepted and 429 requests per second: ${r.endpoint}`,
    description: `${timeline.length} one-second samples of the rate-limit probe`,
    xLabel: 'seconds since the probe started',
    yLabel: 'requests/s',
    series: RATE_SERIES.map((s) => ({ name: s.name, tone: s.tone, points: timeline.map((p) => ({ x: p.t, y: p[s.key] })) })),
  });
  const rows = timeline.map(
    (p) => html`<tr><td class="num">${formatNumber(p.t, Number.isInteger(p.t) ? 0 : 1)}</td>${RATE_SERIES.map((s) => html`<td class="num">${formatNumber(p[s.key])}</td>`)}</tr>`,
  );
  return html`<figure>${chart}<figcaption>Rate-limit probe, per second${legend(RATE_SERIES)}</figcaption></figure>
<details><summary>Rate-limit probe data</summary><table><thead><tr><th scope="col" class="num">t (s)</th>${RATE_SERIES.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}</tr></thead><tbody>${rows}</tbody></table></details>`;
}

export function rateLimitSection(r: RateLimitResult): SafeHtml {
  const proof = proofText(r);
  const facts = rateLimitFacts(r).map(([label, value]) => html`<tr><th scope="row">${label}</th><td>${label === 'Endpoint' ? html`<code>${value}</code>` : value}</td></tr>`);
  const notes = r.notes ?? [];
  return html`<section id="rate-limit" aria-labelledby="rate-limit-h"><h2 id="rate-limit-h">Rate limit</h2>
<div class="callout"><h3>Recommendation</h3><p>${recommendationText(r)}.</p>${proof !== null && html`<p><strong>Proof run:</strong> ${proof}.</p>`}</div>
<table class="facts"><tbody>${facts}</tbody></table>
${notes.length > 0 && html`<ul class="notes">${notes.map((n) => html`<li>${rich(n)}</li>`)}</ul>`}
${rateLimitFigure(r)}${fleetSection(r.fleet)}</section>`;
}
