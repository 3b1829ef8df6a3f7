import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import type { Report } from '../../src/report/model.js';
import { FIXTURES, XSS, loadFixture, mapStrings } from './helpers.js';

/**
 * Every way a page could reach the network: tags with a source or link, CSS imports and URLs. A
 * link within the page (`#check-…`) or to a k6 dashboard export beside it is navigation a reader
 * chooses, not a load.
 */
const NETWORK = [
  /<script\b/i,
  /<link\b/i,
  /<iframe\b/i,
  /<object\b/i,
  /<embed\b/i,
  /@import/i,
  /url\(/i,
  /<[a-z][^>]*\s(?:src|srcset|action|data)=/i,
  /\shref="(?!#[\w.-]+"|k6-dashboard-[\w.-]+\.html")/i,
];

/** `<svg id="…">…</svg>` for a chart id. */
function chart(html: string, id: string): string | undefined {
  return new RegExp(`<svg [^>]*id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0];
}

/** The point count of each polyline in a chart, by series name. */
function polylinePoints(svg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of svg.matchAll(/<polyline [^>]*data-series="([^"]*)"[^>]*points="([^"]*)"/g)) {
    out.set(m[1] ?? '', (m[2] ?? '').trim().split(/\s+/).filter(Boolean).length);
  }
  return out;
}

const noLoad = (r: Report): Report => ({ ...r, load: null, rate_limit: null });

describe.each(FIXTURES)('renderHtml(report-%s)', (name) => {
  const report = loadFixture(name);
  const html = renderHtml(report);

  it('is one complete document', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
  });

  it('loads nothing from anywhere and forbids it by policy', () => {
    for (const pattern of NETWORK) expect(html).not.toMatch(pattern);
    expect(html).not.toContain('src="http');
    expect(html).toContain('http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
  });

  it('follows the light/dark preference', () => {
    expect(html).toContain('@media (prefers-color-scheme:dark)');
  });

  it('shows the verdict, the target and the counts', () => {
    expect(html).toContain(`class="verdict v-${name}"`);
    expect(html).toMatch(
      new RegExp(`role="status"><svg class="icon"[^>]*>.*?</svg> ${name === 'pass' ? 'PASS' : 'FAIL'}</div>`),
    );
    expect(html).toContain(`<code>${report.target.base_url}</code>`);
    expect(html).toContain(`<strong>${report.summary.failed}</strong> failed`);
  });

  it('has a row per check with its status colour and evidence behind <details>', () => {
    const rows = [
      ...html.matchAll(
        /<tr class="row-(\w+)" id="check-[^"]*">\s*<td><span class="status st-\w+"><svg class="icon"[^>]*>.*?<\/svg> \w+<\/span><\/td>\s*<th scope="row"><code>([^<]*)<\/code>/g,
      ),
    ];
    expect(rows.map((m) => m[2])).toEqual(report.checks.map((c) => c.id));
    expect(rows.map((m) => m[1])).toEqual(report.checks.map((c) => c.status));
    const withEvidence = report.checks.filter((c) => c.evidence.length > 0).length;
    expect(html.match(/<details(?: open)?><summary>Evidence/g)).toHaveLength(withEvidence);
    const broken = report.checks.filter(
      (c) => c.level === 'must' && (c.status === 'fail' || c.status === 'error') && c.evidence.length > 0,
    );
    expect(html.match(/<details open><summary>Evidence/g) ?? []).toHaveLength(broken.length);
  });

  it('labels tables with column headers', () => {
    expect(html).toContain('<th scope="col">Status</th>');
    expect(html).toContain('<th scope="col">Scenario</th>');
  });

  it('draws the latency chart with three bars per scenario', () => {
    const svg = chart(html, 'chart-latency') ?? '';
    expect(svg).toContain('<title id="chart-latency-title">');
    expect(svg.match(/<rect /g)).toHaveLength(3 * (report.load?.scenarios.length ?? 0));
  });

  it('draws request rate over time with one point per timeline second', () => {
    const svg = chart(html, 'chart-rate');
    expect(svg).toBeDefined();
    expect(svg).toContain('<title id="chart-rate-title">');
    const points = polylinePoints(svg ?? '');
    const scenarios = report.load?.scenarios ?? [];
    expect([...points.keys()]).toEqual(scenarios.map((s) => s.scenario));
    for (const s of scenarios) expect(points.get(s.scenario)).toBe(s.timeline?.length);
  });

  it('draws offered, accepted and 429 per second of the rate-limit probe', () => {
    const svg = chart(html, 'chart-rate-limit');
    expect(svg).toContain('<title id="chart-rate-limit-title">');
    const points = polylinePoints(svg ?? '');
    expect([...points.keys()]).toEqual(['offered', 'accepted', '429']);
    for (const n of points.values()) expect(n).toBe(report.rate_limit?.timeline?.length);
  });

  it('shows the rate-limit estimate and recommendation as text', () => {
    expect(html).toContain('<h2 id="rate-limit-h">Rate limit</h2>');
    expect(html).toContain('send at most 40.0/s with at most 8 requests in flight');
    expect(html).toContain('<th scope="row">Sustained rate</th><td>50.0/s</td>');
  });

  it('never prints a number it could not compute', () => {
    expect(html).not.toMatch(/NaN|undefined|Infinity|\[object Object\]/);
  });
});

describe('renderHtml escaping', () => {
  it('shows an HTML payload in a message as text', () => {
    const base = loadFixture('fail');
    const html = renderHtml({
      ...base,
      checks: base.checks.map((c, i) => (i === 0 ? { ...c, message: `body: ${XSS}` } : c)),
    });
    expect(html).toContain('body: &lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain('<img');
  });

  it.each(FIXTURES)('escapes every string of report-%s, wherever it lands', (name) => {
    // Appending markup to every string, enums and numbers-as-text included, reaches every interpolation.
    const planted = mapStrings(loadFixture(name), (s) => `${s}<i class="x">'&`);
    const html = renderHtml(planted);
    expect(html).not.toContain('<i ');
    expect(html).not.toContain(`"x">'`);
    expect(html).toContain('&lt;i class=&quot;x&quot;&gt;&#39;&amp;');
    for (const pattern of NETWORK) expect(html).not.toMatch(pattern);
  });

  it('keeps a message with a closing style or svg tag inert', () => {
    const base = loadFixture('pass');
    const html = renderHtml({
      ...base,
      target: { ...base.target, environment: '</style></svg><script>alert(1)</script>' },
    });
    expect(html).not.toContain('<script');
    expect(html.match(/<\/style>/g)).toHaveLength(1);
  });
});

describe('renderHtml without optional data', () => {
  it('has no Load, Rate limit or chart when those stages did not run', () => {
    const html = renderHtml(noLoad(loadFixture('pass')));
    expect(html).not.toContain('<svg class="chart"');
    expect(html).not.toContain('id="load"');
    expect(html).not.toContain('id="rate-limit"');
  });

  it('leaves out time charts without a timeline and survives one-point and all-zero series', () => {
    const base = loadFixture('pass');
    const load = base.load!;
    const rl = base.rate_limit!;
    const report: Report = {
      ...base,
      load: {
        ...load,
        scenarios: [
          { ...load.scenarios[0]!, timeline: [{ t: 0, requests: 0 }], latency_ms: { p50: 0, p95: 0, p99: 0, max: 0 } },
          { ...load.scenarios[1]!, timeline: [] },
        ],
      },
      rate_limit: { ...rl, timeline: [] },
    };
    const html = renderHtml(report);
    expect(html).not.toMatch(/NaN|Infinity|undefined/);
    expect(polylinePoints(chart(html, 'chart-rate') ?? '')).toEqual(new Map([[load.scenarios[0]!.scenario, 1]]));
    expect(chart(html, 'chart-rate') ?? '').toContain('<circle');
    expect(chart(html, 'chart-rate-limit')).toBeUndefined();
    // The scenario left out of the chart is named with why, not dropped in silence.
    expect(html).toContain(`No request-rate chart for ${load.scenarios[1]!.scenario}: k6`);
    expect(html).not.toContain(`No request-rate chart for ${load.scenarios[0]!.scenario}`);
  });

  it('tells a scenario that could not run apart from one that did', () => {
    const base = loadFixture('fail');
    const load = base.load!;
    const html = renderHtml({
      ...base,
      load: { ...load, scenarios: [load.scenarios[0]!, { ...load.scenarios[1]!, error: 'k6 exited 107' }] },
    });
    expect(html).toContain('did not run: k6 exited 107');
    expect((chart(html, 'chart-latency') ?? '').match(/<rect /g)).toHaveLength(3);
  });
});

describe('renderHtml untested stages', () => {
  it('shows what could not be tested above the checks, escaped', () => {
    const html = renderHtml({ ...loadFixture('fail'), untested: [{ stage: 'load', reason: `k6 crashed ${XSS}` }] });
    const at = html.indexOf('id="untested"');
    expect(at).toBeGreaterThan(0);
    expect(html.indexOf('id="checks"')).toBeGreaterThan(at);
    expect(html).not.toContain(XSS);
  });
});
