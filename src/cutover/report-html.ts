// report.html of `cutover`: the same content as report.md, for a browser.

import type { CutoverReport } from './report-model.js';
import { sideBySideRows } from './report-md.js';
import { pageHead, REPORT_CSS } from '../report/common/html-style.js';
import { productionSectionHtml } from '../report/sections/production/html.js';
import { html } from '../report/common/safe-html.js';

const list = (title: string, id: string, lines: readonly string[]) =>
  lines.length
    ? html`<section id="${id}"><h2>${title}</h2><ul>${lines.map((l) => html`<li>${l}</li>`)}</ul></section>`
    : null;

export function renderCutoverHtml(r: CutoverReport): string {
  const c = r.cutover;
  const { production: p, sandbox: s } = c.facts;
  const page = html`<!doctype html>
<html lang="en">
${pageHead(`ces-harness cutover: ${c.verdict} · ${r.started_at}`, REPORT_CSS)}
<body>
<header><h1 id="verdict">Cutover readiness: ${c.verdict}</h1><p>${c.summary}</p>
<p>Production ${p.base_url} (production-safe pass) against sandbox ${s.base_url} (${c.sandbox_source}); cutover window ${c.window_days} days.</p></header>
<main>
${list('Will break a client integrated against sandbox', 'breaking', c.breaking)}
${list('Sandbox itself deviates from the spec', 'sandbox-deviates', c.sandbox_deviations)}
${list('Not tested', 'not-tested', c.not_tested)}
${list('Differs', 'differences', c.differences)}
${list('Not compared', 'not-compared', c.not_compared)}
<section id="side-by-side"><h2>Side by side</h2><table><thead><tr><th>fact</th><th>production</th><th>sandbox</th></tr></thead>
<tbody>${sideBySideRows(p, s).map(([fact, prod, sand]) => html`<tr><td>${fact}</td><td>${prod}</td><td>${sand}</td></tr>`)}</tbody></table></section>
${Object.entries(r.environments).map(
  ([name, e]) =>
    html`<section><h2>Checks on ${name}</h2><table><tbody>${e.checks.map((k) => html`<tr><td>${k.id}</td><td>${k.status}</td><td>${k.message}</td></tr>`)}</tbody></table></section>`,
)}
${productionSectionHtml(r.production)}
</main>
<footer>${r.tool.name} ${r.tool.version} · ${r.schema}</footer>
</body>
</html>
`;
  return page.value;
}
