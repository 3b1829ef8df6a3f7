// report.html and report.md link k6's web-dashboard exports beside them, and nothing else.

import { describe, expect, it } from 'vitest';
import { dashboardLinks } from '../../src/report/sections/load/words.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report } from '../../src/report/model.js';
import { loadFixture } from './helpers.js';

const withDashboards = (dashboards: string[][]): Report => {
  const r = loadFixture('pass');
  return {
    ...r,
    load: { ...r.load!, scenarios: r.load!.scenarios.map((s, i) => ({ ...s, dashboards: dashboards[i] ?? [] })) },
  };
};

describe('k6 dashboard links', () => {
  it('report.html and report.md link each scenario export by the scenario name', () => {
    const report = loadFixture('pass');
    const html = renderHtml(report);
    const md = renderMarkdown(report);
    for (const s of report.load!.scenarios) {
      expect(html).toContain(`<a href="k6-dashboard-${s.scenario}.html">${s.scenario}</a>`);
      expect(md).toContain(`[\`${s.scenario}\`](k6-dashboard-${s.scenario}.html)`);
    }
    // In the Load section, right under its headline.
    expect(html.indexOf('class="dashboards"')).toBeGreaterThan(html.indexOf('id="load-h"'));
    expect(html.indexOf('class="dashboards"')).toBeLessThan(html.indexOf('<table class="load">'));
  });

  it('names each k6 process when a scenario has several exports (segments, the TLS 1.2 probe)', () => {
    const links = dashboardLinks(withDashboards([['k6-dashboard-tls.html', 'k6-dashboard-tls12-refused.html']]).load!);
    expect(links.map((l) => [l.label, l.file])).toEqual([
      ['tls', 'k6-dashboard-tls.html'],
      ['tls12-refused', 'k6-dashboard-tls12-refused.html'],
    ]);
  });

  it('links no name that could lead elsewhere than a file beside the report', () => {
    const hostile = [
      'https://example.test/k6-dashboard-x.html',
      '../k6-dashboard-x.html',
      'javascript:alert(1)',
      'k6-dashboard-x.html?x=1',
      '/etc/k6-dashboard-x.html',
    ];
    const report = withDashboards([hostile, []]);
    expect(dashboardLinks(report.load!)).toEqual([]);
    expect(renderHtml(report)).not.toContain('class="dashboards"');
    expect(renderMarkdown(report)).not.toContain('k6 web dashboards');
  });

  it('says nothing when k6 wrote no export', () => {
    const report = withDashboards([[], []]);
    expect(renderHtml(report)).not.toContain('k6 web dashboards');
  });
});
