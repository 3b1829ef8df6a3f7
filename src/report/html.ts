// report.html: one file a reviewer can open from a CI artefact with no network at all. Everything
// is inline (CSS, SVG charts), there is no script, and a Content-Security-Policy forbids loading
// anything should a report string ever slip past escaping. Every report string goes through `html`.

import {
  STATUS_ICON,
  formatMs,
  formatNumber,
  formatPercent,
  formatRate,
  formatSeconds,
  proofText,
  rateLimitFacts,
  recommendationText,
  runSeconds,
  splitCode,
  thresholdText,
} from './format.js';
import { specLabel, type CheckResult, type Evidence, type LoadResult, type LoadScenarioResult, type RateLimitResult, type Report, type Untested } from './model.js';
import { SafeHtml, html, joinHtml } from './safe-html.js';
import { isBrokenMust, loadHeadline, scenariosWithTimeline, thresholdCount } from './select.js';
import { barChart, legend, lineChart } from './svg.js';

const CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--subtle:#f6f8fa;
--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--skip:#59636e;--error:#8250df;
--c0:#0969da;--c1:#bf8700;--c2:#1a7f37;--c3:#8250df;--c4:#bc4c00;--c5:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;--subtle:#151b23;
--pass:#3fb950;--fail:#f85149;--warn:#d29922;--skip:#9198a1;--error:#ab7df8;
--c0:#4493f8;--c1:#e3b341;--c2:#3fb950;--c3:#ab7df8;--c4:#f0883e;--c5:#f85149}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:1200px;margin:0 auto;padding:16px 24px}
h1{font-size:20px;margin:0}
h2{font-size:18px;border-bottom:1px solid var(--border);padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:8px 0}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--subtle);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.head{display:flex;gap:16px;align-items:center;flex-wrap:wrap}
.verdict{font-weight:700;font-size:18px;padding:8px 16px;border-radius:8px;color:var(--bg)}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}
.muted{color:var(--muted)}
.badge{border:1px solid var(--border);border-radius:999px;padding:0 8px;font-size:12px;color:var(--muted)}
.counts{list-style:none;display:flex;gap:8px;padding:0;margin:12px 0 0;flex-wrap:wrap}
.counts li{border:1px solid var(--border);border-radius:999px;padding:2px 12px}
.st-pass{color:var(--pass)}.st-fail{color:var(--fail)}.st-warn{color:var(--warn)}.st-skip{color:var(--skip)}.st-error{color:var(--error)}
.wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid var(--border);padding:6px 8px;text-align:left;vertical-align:top}
thead th{background:var(--subtle);font-weight:600}
tbody th{font-weight:400}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.row-pass>td:first-child{border-left:4px solid var(--pass)}
tr.row-fail>td:first-child{border-left:4px solid var(--fail)}
tr.row-warn>td:first-child{border-left:4px solid var(--warn)}
tr.row-skip>td:first-child{border-left:4px solid var(--skip)}
tr.row-error>td:first-child{border-left:4px solid var(--error)}
.status{font-weight:600;white-space:nowrap}
.title{color:var(--muted)}
.msg{white-space:pre-wrap;overflow-wrap:anywhere}
summary{cursor:pointer;color:var(--muted)}
ol.evidence{margin:4px 0;padding-left:20px}
.thresholds{list-style:none;margin:0;padding:0}
.ok{color:var(--pass)}.bad{color:var(--fail)}
.callout{border:1px solid var(--border);border-left:4px solid var(--c0);border-radius:6px;padding:4px 16px;background:var(--subtle)}
.untested{border-left-color:var(--fail)}
figure{margin:16px 0}
figcaption{color:var(--muted)}
svg.chart{max-width:100%;height:auto;display:block}
.chart text{fill:var(--muted);font:11px system-ui,sans-serif}
.chart .grid line{stroke:var(--border)}
.chart line.axis{stroke:var(--muted)}
.chart .line{stroke-width:2;stroke-linejoin:round}
.c0{color:var(--c0)}.c1{color:var(--c1)}.c2{color:var(--c2)}.c3{color:var(--c3)}.c4{color:var(--c4)}.c5{color:var(--c5)}
.legend{list-style:none;display:flex;gap:16px;padding:0;margin:4px 0;flex-wrap:wrap}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;background:currentColor;margin-right:6px;vertical-align:-1px}
footer{color:var(--muted);font-size:12px}
`;

// The report never needs to load anything; this makes that a browser-enforced fact.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const OPEN = html` open`;

/** Free text with the author's `backticked` quotes as <code>; newlines survive through CSS pre-wrap. */
function rich(text: string): SafeHtml {
  return joinHtml(splitCode(text).map((s) => (s.code ? html`<code>${s.text}</code>` : html`${s.text}`)));
}

function header(report: Report): SafeHtml {
  const seconds = runSeconds(report);
  const s = report.summary;
  const counts: Array<[string, number, string]> = [
    ['pass', s.passed, 'passed'],
    ['fail', s.failed, 'failed'],
    ['warn', s.warned, 'warned'],
    ['skip', s.skipped, 'skipped'],
    ['error', s.errored, 'errored'],
  ];
  return html`<header>
<div class="head"><div class="verdict v-${report.verdict}" role="status">${report.verdict === 'pass' ? '✓ PASS' : '✗ FAIL'}</div>
<div><h1>Credit Evaluation Service: conformance report</h1>
<p class="target"><strong>${report.target.environment}</strong> <code>${report.target.base_url}</code>${report.target.emulated && html` <span class="badge">built-in emulator</span>`}</p></div></div>
<p class="muted">Started <time datetime="${report.started_at}">${report.started_at}</time> · finished <time datetime="${report.finished_at}">${report.finished_at}</time>${seconds !== null && html` · ${formatSeconds(seconds)}`} · ${report.tool.name} ${report.tool.version}</p>
<ul class="counts" aria-label="Check counts">${counts.map(([status, n, label]) => html`<li class="st-${status}"><strong>${n}</strong> ${label}</li>`)}</ul>
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
  return html`<tr class="row-${c.status}">
<td><span class="status st-${c.status}">${STATUS_ICON[c.status] ?? ''} ${c.status}</span></td>
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

function thresholdList(s: LoadScenarioResult): SafeHtml {
  if (s.thresholds.length === 0) return html`<span class="muted">none</span>`;
  return html`<ul class="thresholds">${s.thresholds.map(
    (t) => html`<li class="${t.ok ? 'ok' : 'bad'}">${t.ok ? '✓' : '✗'} <code>${thresholdText(t)}</code><span class="muted">${t.ok ? '' : ' (crossed)'}</span></li>`,
  )}</ul>`;
}

function scenarioRow(s: LoadScenarioResult): SafeHtml {
  const name = html`<th scope="row"><code>${s.scenario}</code></th>`;
  if (s.error) return html`<tr class="row-error">${name}<td colspan="9" class="st-error">did not run: ${rich(s.error)}</td><td>${thresholdList(s)}</td></tr>`;
  const l = s.latency_ms;
  const cells = [
    formatNumber(s.requests),
    formatRate(s.rate_per_s),
    formatMs(l.p50),
    formatMs(l.p95),
    formatMs(l.p99),
    formatMs(l.max),
    formatPercent(s.error_rate),
    `${formatNumber(s.checks.passed)} ✓ / ${formatNumber(s.checks.failed)} ✗`,
    formatNumber(s.dropped_iterations),
  ];
  return html`<tr>${name}${cells.map((c) => html`<td class="num">${c}</td>`)}<td>${thresholdList(s)}</td></tr>`;
}

function extrasTable(load: LoadResult): SafeHtml | null {
  const rows = load.scenarios.flatMap((s) =>
    Object.entries(s.extra ?? {}).map(
      ([key, value]) =>
        html`<tr><td><code>${s.scenario}</code></td><th scope="row">${key}</th><td class="num">${typeof value === 'number' ? formatNumber(value, Number.isInteger(value) ? 0 : 2) : value}</td></tr>`,
    ),
  );
  if (rows.length === 0) return null;
  return html`<h3>Scenario figures</h3><table class="extras"><thead><tr><th scope="col">Scenario</th><th scope="col">Figure</th><th scope="col" class="num">Value</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const PERCENTILES = ['p50', 'p95', 'p99'] as const;

function latencyFigure(load: LoadResult): SafeHtml | null {
  const ran = load.scenarios.filter((s) => !s.error);
  if (ran.length === 0) return null;
  const chart = barChart({
    id: 'chart-latency',
    title: 'Latency percentiles per scenario (ms)',
    description: ran.map((s) => `${s.scenario}: ${PERCENTILES.map((p) => `${p} ${formatMs(s.latency_ms[p])}`).join(', ')}`).join('; '),
    yLabel: 'ms',
    unit: ' ms',
    seriesNames: PERCENTILES,
    groups: ran.map((s) => ({ label: s.scenario, values: PERCENTILES.map((p) => s.latency_ms[p]) })),
  });
  return html`<figure>${chart}<figcaption>Latency p50 / p95 / p99 per scenario${legend(PERCENTILES.map((name) => ({ name })))}</figcaption></figure>`;
}

function rateFigure(load: LoadResult): SafeHtml | null {
  const withTimeline = scenariosWithTimeline(load);
  if (withTimeline.length === 0) return null;
  const chart = lineChart({
    id: 'chart-rate',
    title: 'Requests per second over time, per scenario',
    description: withTimeline.map((s) => `${s.scenario}: ${s.timeline.length} one-second samples`).join('; '),
    xLabel: 'seconds since the scenario started',
    yLabel: 'requests/s',
    series: withTimeline.map((s, i) => ({ name: s.scenario, tone: i, points: s.timeline.map((p) => ({ x: p.t, y: p.requests })) })),
  });
  const rows = withTimeline.flatMap((s) =>
    s.timeline.map(
      (p) =>
        html`<tr><td><code>${s.scenario}</code></td><td class="num">${formatNumber(p.t, Number.isInteger(p.t) ? 0 : 1)}</td><td class="num">${formatNumber(p.requests)}</td><td class="num">${p.p95_ms === undefined ? '–' : formatMs(p.p95_ms)}</td></tr>`,
    ),
  );
  return html`<figure>${chart}<figcaption>Request rate over time${legend(withTimeline.map((s, i) => ({ name: s.scenario, tone: i })))}</figcaption></figure>
<details><summary>Request rate data</summary><table><thead><tr><th scope="col">Scenario</th><th scope="col" class="num">t (s)</th><th scope="col" class="num">Requests</th><th scope="col" class="num">p95</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

function loadSection(load: LoadResult): SafeHtml {
  const t = thresholdCount(load);
  return html`<section id="load" aria-labelledby="load-h"><h2 id="load-h">Load</h2>
<p><strong class="${load.ok ? 'ok' : 'bad'}">${load.ok ? '✓' : '✗'} ${loadHeadline(load)}</strong> (${t.met} of ${t.total}) · k6 ${load.k6_version} · run <code>${load.run_id}</code></p>
<div class="wrap"><table class="load"><thead><tr><th scope="col">Scenario</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Rate</th><th scope="col" class="num">p50</th><th scope="col" class="num">p95</th><th scope="col" class="num">p99</th><th scope="col" class="num">max</th><th scope="col" class="num">Errors</th><th scope="col" class="num">Checks</th><th scope="col" class="num">Dropped</th><th scope="col">Thresholds</th></tr></thead>
<tbody>${load.scenarios.map(scenarioRow)}</tbody></table></div>
${extrasTable(load)}${latencyFigure(load)}${rateFigure(load)}</section>`;
}

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

function rateLimitSection(r: RateLimitResult): SafeHtml {
  const proof = proofText(r);
  const facts = rateLimitFacts(r).map(([label, value]) => html`<tr><th scope="row">${label}</th><td>${label === 'Endpoint' ? html`<code>${value}</code>` : value}</td></tr>`);
  const notes = r.notes ?? [];
  return html`<section id="rate-limit" aria-labelledby="rate-limit-h"><h2 id="rate-limit-h">Rate limit</h2>
<div class="callout"><h3>Recommendation</h3><p>${recommendationText(r)}.</p>${proof !== null && html`<p><strong>Proof run:</strong> ${proof}.</p>`}</div>
<table class="facts"><tbody>${facts}</tbody></table>
${notes.length > 0 && html`<ul class="notes">${notes.map((n) => html`<li>${rich(n)}</li>`)}</ul>`}
${rateLimitFigure(r)}</section>`;
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
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new SafeHtml(CSS)}</style>
</head>
<body>
${header(report)}
<main>
${untestedSection(report.untested ?? [])}
${notesSection(report.notes ?? [])}
${checksSection(report.checks)}
${report.load && loadSection(report.load)}
${report.rate_limit && rateLimitSection(report.rate_limit)}
</main>
<footer>${report.tool.name} ${report.tool.version} · ${report.schema}</footer>
</body>
</html>
`;
  return page.value;
}
