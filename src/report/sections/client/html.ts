// report.html's Client section (`ces-harness client`): the command, one row per scenario run, and
// each run's first requests (credentials as fingerprints, bodies as shapes) behind a disclosure.

import { CLIENT_RUN_COLUMNS, clientRunCells, exchangeText } from './words.js';
import type { ClientSection } from './model.js';
import { type SafeHtml, html } from '../../common/safe-html.js';

export function clientSectionHtml(client: ClientSection): SafeHtml {
  const rows = client.runs.map(
    (run) =>
      html`<tr>${clientRunCells(run).map((cell, i) => (i === 0 ? html`<th scope="row"><code>${cell}</code></th>` : html`<td>${cell}</td>`))}</tr>`,
  );
  const logs = client.runs.map(
    (
      run,
    ) => html`<details><summary>${run.scenario}: ${run.description} (first ${run.exchanges.length} of ${run.requests} requests)</summary>
<ol>${run.exchanges.map((e) => html`<li><code>${exchangeText(e)}</code></li>`)}</ol></details>`,
  );
  return html`<section id="client" aria-labelledby="client-h"><h2 id="client-h">Client</h2>
<p>Command <code>${client.command}</code> · time limit ${client.time_limit_s} s per scenario</p>
<div class="wrap"><table><thead><tr>${CLIENT_RUN_COLUMNS.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>
${logs}</section>`;
}
