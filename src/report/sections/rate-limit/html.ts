// report.html's Rate limit section: the recommendation first (what to configure), then the facts
// it rests on, the probe's notes, and the chart of offered, accepted and 429 requests (html-chart.ts).

import { formatNumber } from '../../common/format.js';
import { proofText, rateLimitFacts, recommendationText } from './words.js';
import { rateLimitFigure } from './html-chart.js';
import { fleetSection } from '../fleet/html.js';
import { rich } from '../../common/html-rich.js';
import type { RateLimitResult } from '../../model.js';
import { type SafeHtml, html } from '../../common/safe-html.js';

export function rateLimitSection(r: RateLimitResult): SafeHtml {
  const proof = proofText(r);
  const facts = rateLimitFacts(r).map(
    ([label, value]) =>
      html`<tr><th scope="row">${label}</th><td>${label === 'Endpoint' ? html`<code>${value}</code>` : value}</td></tr>`,
  );
  const notes = r.notes ?? [];
  return html`<section id="rate-limit" aria-labelledby="rate-limit-h"><h2 id="rate-limit-h">Rate limit</h2>
<div class="callout"><h3>Recommendation</h3><p>${recommendationText(r)}.</p>${proof !== null && html`<p><strong>Proof run:</strong> ${proof}.</p>`}</div>
<table class="facts"><tbody>${facts}</tbody></table>
${notes.length > 0 && html`<ul class="notes">${notes.map((n) => html`<li>${rich(n)}</li>`)}</ul>`}
${rateLimitFigure(r)}${fleetSection(r.fleet)}</section>`;
}
