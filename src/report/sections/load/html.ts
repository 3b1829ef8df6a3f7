// report.html's Load section: the per-scenario table with its thresholds, the scenarios' own
// figures, and the latency and request-rate charts with their data tables (charts are images to a
// screen reader, so the numbers are always there as a table too).

import { formatMs, formatNumber, scenarioCells, thresholdText } from '../../common/format.js';
import { dashboardLinks, loadSpanText, missingTimelineNote } from './words.js';
import { findingsBlock } from '../findings/html.js';
import { okIcon } from '../../common/html-icons.js';
import { rich } from '../../common/html-rich.js';
import type { LoadResult, LoadScenarioResult } from '../../model.js';
import { type SafeHtml, html, joinHtml } from '../../common/safe-html.js';
import { loadHeadline, scenariosWithTimeline, thresholdCount } from '../../common/select.js';
import { barChart, legend, lineChart } from '../../common/svg.js';

// k6 metric names with tags (http_req_duration{mode:token_per_call}) are one long word: a break
// allowed before each tag set and after each comma keeps the column narrow enough for the table.
const breakable = (text: string): SafeHtml =>
  joinHtml(
    text.split(/(?=\{)|(?<=,)/).map((part) => html`${part}`),
    '<wbr>',
  );

function thresholdList(s: LoadScenarioResult): SafeHtml {
  if (s.thresholds.length === 0) return html`<span class="muted">none</span>`;
  return html`<ul class="thresholds">${s.thresholds.map(
    (t) =>
      html`<li class="${t.ok ? 'ok' : 'bad'}">${okIcon(t.ok)} <code>${breakable(thresholdText(t))}</code><span class="muted">${t.ok ? '' : ' (crossed)'}</span></li>`,
  )}</ul>`;
}

function scenarioRow(s: LoadScenarioResult): SafeHtml {
  const name = html`<th scope="row"><code>${s.scenario}</code></th>`;
  if (s.error)
    return html`<tr class="row-error">${name}<td colspan="9" class="st-error">did not run: ${rich(s.error)}</td><td>${thresholdList(s)}</td></tr>`;
  return html`<tr>${name}${scenarioCells(s).map((c) => html`<td class="num">${c}</td>`)}<td>${thresholdList(s)}</td></tr>`;
}

const PERCENTILES = ['p50', 'p95', 'p99'] as const;

function latencyFigure(load: LoadResult): SafeHtml | null {
  const ran = load.scenarios.filter((s) => !s.error);
  if (ran.length === 0) return null;
  const chart = barChart({
    id: 'chart-latency',
    title: 'Latency percentiles per scenario (ms)',
    description: ran
      .map((s) => `${s.scenario}: ${PERCENTILES.map((p) => `${p} ${formatMs(s.latency_ms[p])}`).join(', ')}`)
      .join('; '),
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
    series: withTimeline.map((s, i) => ({
      name: s.scenario,
      tone: i,
      points: s.timeline.map((p) => ({ x: p.t, y: p.requests })),
    })),
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

function missingTimelineHtml(load: LoadResult): SafeHtml | null {
  const note = missingTimelineNote(load);
  return note === undefined ? null : html`<p class="muted">${note}</p>`;
}

function dashboardLinksHtml(load: LoadResult): SafeHtml | null {
  const links = dashboardLinks(load);
  if (links.length === 0) return null;
  const items = links.map((l) => html`<a href="${l.file}">${l.label}</a>`);
  return html`<p class="dashboards">k6 web dashboards (open beside this file): ${joinHtml(items, ' · ')}</p>`;
}

export function loadSection(load: LoadResult): SafeHtml {
  const t = thresholdCount(load);
  return html`<section id="load" aria-labelledby="load-h"><h2 id="load-h">Load</h2>
<p><strong class="${load.ok ? 'ok' : 'bad'}">${okIcon(load.ok)} ${loadHeadline(load)}</strong> (${t.met} of ${t.total})${loadSpanText(load) === null ? '' : ` · ${loadSpanText(load)}`} · k6 ${load.k6_version} · run <code>${load.run_id}</code></p>
${dashboardLinksHtml(load)}<div class="wrap"><table class="load"><thead><tr><th scope="col">Scenario</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Rate</th><th scope="col" class="num">p50</th><th scope="col" class="num">p95</th><th scope="col" class="num">p99</th><th scope="col" class="num">max</th><th scope="col" class="num">Errors</th><th scope="col" class="num">Checks</th><th scope="col" class="num">Dropped</th><th scope="col">Thresholds</th></tr></thead>
<tbody>${load.scenarios.map(scenarioRow)}</tbody></table></div>
${findingsBlock(load)}${latencyFigure(load)}${rateFigure(load)}${missingTimelineHtml(load)}</section>`;
}
