// report.html: one file a reviewer can open from a CI artefact with no network at all. Everything
// is inline (CSS, SVG charts), there is no script, and a Content-Security-Policy forbids loading
// anything should a report string ever slip past escaping. Every report string goes through `html`.
// This file is the page and its Checks section; every other section has a folder under sections/.

import { leftOutText, skippedText } from './sections/scope/words.js';
import { rateLimitSummary } from './sections/rate-limit/words.js';
import { formatMs, formatSeconds, runSeconds } from './common/format.js';
import { statusIcon } from './common/html-icons.js';
import { checkAnchor, leadSection } from './sections/lead/html.js';
import { clientSectionHtml } from './sections/client/html.js';
import { SINCE_CSS, sinceLastRunSection } from './sections/since/html.js';
import { loadSection } from './sections/load/html.js';
import { rateLimitSection } from './sections/rate-limit/html.js';
import { productionSectionHtml } from './sections/production/html.js';
import { rich } from './common/html-rich.js';
import { pageHead, REPORT_CSS } from './common/html-style.js';
import { specLabel, verdictWord, type CheckResult, type Evidence, type Report, type Untested } from './model.js';
import { SafeHtml, html } from './common/safe-html.js';
import { isBrokenMust } from './common/select.js';
import { reportTransport } from './sections/transport/words.js';

const OPEN = html` open`;

function header(report: Report): SafeHtml {
  const seconds = runSeconds(report);
  const s = report.summary;
  const skipped = skippedText(report.checks);
  const counts: Array<[string, number, string]> = [
    ['pass', s.passed, 'passed'],
    ['fail', s.failed, 'failed'],
    ['warn', s.warned, 'warned'],
    ['skip', s.skipped, 'skipped'],
    ['error', s.errored, 'errored'],
  ];
  return html`<header>
<div class="head"><div class="verdict v-${report.verdict}" role="status">${statusIcon(report.verdict)} ${verdictWord(report)}</div>
<div><h1>Credit Evaluation Service: conformance report</h1>
<p class="target"><strong>${report.target.environment}</strong> <code>${report.target.base_url}</code>${report.target.emulated && html` <span class="badge">built-in emulator</span>`}</p></div></div>
<p class="muted">Started <time datetime="${report.started_at}">${report.started_at}</time> · finished <time datetime="${report.finished_at}">${report.finished_at}</time>${seconds !== null && html` · ${formatSeconds(seconds)}`} · ${report.tool.name} ${report.tool.version}</p>
<ul class="counts" aria-label="Check counts">${counts.map(([status, n, label]) => html`<li class="st-${status}"><strong>${n}</strong> ${label}</li>`)}</ul>${
    report.rate_limit &&
    html`
<p class="muted">Rate limit: ${rateLimitSummary(report.rate_limit)}</p>`
  }${
    report.checks_left_out &&
    html`
<p class="muted">${leftOutText(report.checks_left_out)}</p>`
  }${
    skipped &&
    html`
<p class="muted">${skipped}</p>`
  }${
    reportTransport(report) &&
    html`
<p class="muted">Transport: ${reportTransport(report)}</p>`
  }
</header>`;
}

function evidenceItem(e: Evidence): SafeHtml {
  return html`<li><code>${e.request}</code>${e.status !== undefined && html` → <strong>${e.status}</strong>`}${e.note && html` — ${rich(e.note)}`}</li>`;
}

function evidence(c: CheckResult): SafeHtml | null {
  if (c.evidence.length === 0) return null;
  // What broke the run is shown unfolded; everything else stays one click away.
  return html`<details${isBrokenMust(c) ? OPEN : null}><summary>Evidence (${c.evidence.length})</summary><ol class="evidence">${c.evidence.map(evidenceItem)}</ol></details>`;
}

function checkRow(c: CheckResult): SafeHtml {
  return html`<tr class="row-${c.status}" id="${checkAnchor(c.id)}">
<td><span class="status st-${c.status}">${statusIcon(c.status)} ${c.status}</span></td>
<th scope="row"><code>${c.id}</code><div class="title">${c.title}</div></th>
<td>${specLabel(c.spec)}</td><td>${c.level}</td>
<td><div class="msg">${rich(c.message)}</div>${evidence(c)}</td>
<td class="num">${formatMs(c.duration_ms)}</td></tr>`;
}

function checksSection(checks: readonly CheckResult[]): SafeHtml {
  const body =
    checks.length === 0
      ? html`<p class="muted">No checks ran.</p>`
      : html`<div class="wrap"><table class="checks"><caption class="muted">One row per conformance check; Spec is the section of the service spec it enforces.</caption>
<thead><tr><th scope="col">Status</th><th scope="col">Check</th><th scope="col">Spec</th><th scope="col">Level</th><th scope="col">Result</th><th scope="col" class="num">Time</th></tr></thead>
<tbody>${checks.map(checkRow)}</tbody></table></div>`;
  return html`<section id="checks" aria-labelledby="checks-h"><h2 id="checks-h">Checks</h2>${body}</section>`;
}

function untestedSection(untested: readonly Untested[]): SafeHtml | null {
  if (untested.length === 0) return null;
  return html`<section id="untested" class="callout untested" aria-labelledby="untested-h"><h2 id="untested-h">Not tested</h2>
<p>The run could not test everything it was asked to, so it cannot pass:</p>
<ul>${untested.map((u) => html`<li><code>${u.stage}</code>: ${rich(u.reason)}</li>`)}</ul></section>`;
}

function notesSection(notes: readonly string[]): SafeHtml | null {
  if (notes.length === 0) return null;
  return html`<section id="notes" class="callout" aria-labelledby="notes-h"><h2 id="notes-h">Notes</h2>
<ul>${notes.map((n) => html`<li>${rich(n)}</li>`)}</ul></section>`;
}

export function renderHtml(report: Report): string {
  const title = `ces-harness: ${report.verdict} · ${report.target.environment} · ${report.started_at}`;
  const page = html`<!doctype html>
<html lang="en">
${pageHead(title, report.since_last_run ? REPORT_CSS + SINCE_CSS : REPORT_CSS)}
<body>
${header(report)}
<main>
${leadSection(report)}
${sinceLastRunSection(report)}${untestedSection(report.untested ?? [])}
${notesSection(report.notes ?? [])}
${checksSection(report.checks)}
${report.load && loadSection(report.load)}
${report.rate_limit && rateLimitSection(report.rate_limit)}${report.client ? clientSectionHtml(report.client) : null}${productionSectionHtml(report.production)}
</main>
<footer>${report.tool.name} ${report.tool.version} · ${report.schema}</footer>
</body>
</html>
`;
  return page.value;
}
