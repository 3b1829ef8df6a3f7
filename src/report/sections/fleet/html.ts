// report.html's fleet part of the Rate limit section (`--fleet N`): the recommendation, the method,
// and goodput and 429 rate against fleet size for each candidate policy (two charts), with the
// rows beneath as a table so the figures read without the pictures.

import {
  FLEET_HEADERS,
  fleetHeading,
  fleetBasisText,
  fleetMethodText,
  fleetProofText,
  fleetRecommendationText,
  fleetRowCells,
} from './words.js';
import { rich } from '../../common/html-rich.js';
import type { FleetResult, FleetRow } from '../../model.js';
import { type SafeHtml, html } from '../../common/safe-html.js';
import { legend, lineChart, type Series } from '../../common/svg.js';

// Sizes go 1, 4, 16, … 1000: on a linear axis all but the last would sit on top of each other.
const X_LABEL = 'fleet size, log₂ of instances (0 = 1, 4 = 16, 10 = 1024)';

function seriesOf(rows: readonly FleetRow[], y: (r: FleetRow) => number): Series[] {
  const policies = [...new Set(rows.map((r) => r.policy))];
  return policies.map((policy, tone) => ({
    name: policy,
    tone,
    points: rows.filter((r) => r.policy === policy).map((r) => ({ x: Math.log2(r.instances), y: y(r) })),
  }));
}

function fleetCharts(f: FleetResult): SafeHtml {
  const goodput = seriesOf(f.rows, (r) => r.goodput_rps);
  const refused = seriesOf(f.rows, (r) => r.rate_429 * 100);
  const common = {
    xLabel: X_LABEL,
    description: `${f.rows.length} simulated runs: ${f.offered_rps} req/s offered for ${f.duration_s} s against ${f.limiter}`,
  };
  return html`<figure>${lineChart({ id: 'chart-fleet-goodput', title: 'Goodput against fleet size, per policy', yLabel: 'goodput req/s', series: goodput, ...common })}<figcaption>Goodput${legend(goodput)}</figcaption></figure>
<figure>${lineChart({ id: 'chart-fleet-429', title: '429 rate against fleet size, per policy', yLabel: '429 rate %', series: refused, ...common })}<figcaption>Share of requests refused${legend(refused)}</figcaption></figure>`;
}

export function fleetSection(f: FleetResult | null | undefined): SafeHtml | null {
  if (f === undefined) return null;
  if (f === null) return html`<h3 id="fleet-h">Fleet</h3><p>Not sized: no proven single-client rate to share out.</p>`;
  const why = f.recommendation?.why ?? [];
  const rows = f.rows.map(
    (r) =>
      html`<tr>${fleetRowCells(r).map((c, i) => (i === 1 ? html`<td>${c}</td>` : html`<td class="num">${c}</td>`))}</tr>`,
  );
  return html`<h3 id="fleet-h">${fleetHeading(f)}</h3>
<div class="callout"><p><strong>Fleet recommendation:</strong> ${fleetRecommendationText(f)} (${fleetBasisText(f)}).</p><p>${fleetMethodText(f)}</p>${fleetProofText(f) !== null && html`<p><strong>Fleet proof run:</strong> ${fleetProofText(f)}.</p>`}</div>
${why.length > 0 && html`<ul class="notes">${why.map((w) => html`<li>${rich(w)}</li>`)}</ul>`}
${fleetCharts(f)}
<details><summary>Fleet simulation data</summary><table><thead><tr>${FLEET_HEADERS.map((h, i) => html`<th scope="col"${i === 1 ? '' : html` class="num"`}>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></details>`;
}
