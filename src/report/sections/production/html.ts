// report.html's production section: every request the run sent to production, one row each.

import type { ProductionAudit } from '../../model.js';
import { PRODUCTION_COLUMNS, productionRow, productionSummary } from './words.js';
import { html, type SafeHtml } from '../../common/safe-html.js';

export function productionSectionHtml(p: ProductionAudit | undefined): SafeHtml | null {
  if (!p) return null;
  const table = p.requests.length
    ? html`<div class="wrap"><table class="production"><thead><tr>${PRODUCTION_COLUMNS.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${p.requests.map((r) => html`<tr>${productionRow(r).map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table></div>`
    : null;
  return html`<section id="production" aria-labelledby="production-h"><h2 id="production-h">Requests sent to production</h2>
<p>${productionSummary(p)}</p>${table}</section>`;
}
