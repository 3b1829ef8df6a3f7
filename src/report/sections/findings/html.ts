// report.html's load findings: the scenarios' own k6 figures as sentences (words.ts), the
// cost of a token per call as a chart, and every figure no sentence says in a folded table.

import { formatFigure, formatMs } from '../../common/format.js';
import { rich } from '../../common/html-rich.js';
import { loadFindings, type TokenCost } from './words.js';
import type { LoadResult } from '../../model.js';
import { html, type SafeHtml } from '../../common/safe-html.js';
import { barChart, legend } from '../../common/svg.js';

const COST_SERIES = ['p50', 'p95'] as const;

function tokenCostFigure(c: TokenCost, index: number): SafeHtml {
  const modes = [
    { label: 'cached token', values: c.cached },
    { label: 'token per call', values: c.perCall },
  ];
  const chart = barChart({
    id: `chart-token-cost${index === 0 ? '' : `-${index + 1}`}`,
    title: `Logical business call, cached token against a token fetched per call (ms): ${c.scenario}`,
    description: modes
      .map((m) => `${m.label}: p50 ${formatMs(m.values.p50)}, p95 ${formatMs(m.values.p95)}`)
      .join('; '),
    yLabel: 'ms',
    unit: ' ms',
    seriesNames: COST_SERIES,
    groups: modes.map((m) => ({ label: m.label, values: COST_SERIES.map((p) => m.values[p]) })),
    valueLabels: true,
  });
  return html`<figure>${chart}<figcaption>What one business call costs a client, token handling included: cached token against token per call${legend(COST_SERIES.map((name) => ({ name })))}</figcaption></figure>`;
}

export function findingsBlock(load: LoadResult): SafeHtml | null {
  const all = loadFindings(load);
  const sentences = all.flatMap((s) =>
    s.findings.map((f) => html`<li><code>${f.scenario}</code>: ${rich(f.text)}</li>`),
  );
  const costs = all.flatMap((s) => (s.tokenCost ? [s.tokenCost] : []));
  const rest = all.flatMap((s) =>
    s.rest.map(
      ([key, v]) =>
        html`<tr><td><code>${s.scenario}</code></td><th scope="row"><code>${key}</code></th><td class="num">${formatFigure(v)}</td></tr>`,
    ),
  );
  if (sentences.length === 0 && costs.length === 0 && rest.length === 0) return null;
  return html`<h3>Findings</h3>${sentences.length > 0 && html`<ul class="findings">${sentences}</ul>`}${costs.map(tokenCostFigure)}
${rest.length > 0 && html`<details><summary>Other k6 figures (${rest.length})</summary><table class="extras"><thead><tr><th scope="col">Scenario</th><th scope="col">k6 metric</th><th scope="col" class="num">Value</th></tr></thead><tbody>${rest}</tbody></table></details>`}`;
}
