// Links from the reports to k6's web-dashboard exports beside them. Only a plain file name of the
// harness's own pattern becomes a link: a report.json edited by hand or another tool must not turn
// the page into a link to anywhere.

import type { LoadResult } from '../../model.js';
import { html, joinHtml, type SafeHtml } from '../../common/safe-html.js';
import { mdCode } from '../../common/md-text.js';

const EXPORT_NAME = /^k6-dashboard-[A-Za-z0-9_.-]+\.html$/;

export interface DashboardLink {
  scenario: string;
  file: string;
  /** What the link says: the scenario, or the k6 process (a segment, the TLS 1.2 probe) when it has several. */
  label: string;
}

export function dashboardLinks(load: LoadResult): DashboardLink[] {
  return load.scenarios.flatMap((s) => {
    const files = (s.dashboards ?? []).filter((f) => EXPORT_NAME.test(f) && !f.includes('..'));
    return files.map((file) => ({
      scenario: s.scenario,
      file,
      label: files.length === 1 ? s.scenario : file.replace(/^k6-dashboard-/, '').replace(/\.html$/, ''),
    }));
  });
}

export function dashboardLinksHtml(load: LoadResult): SafeHtml | null {
  const links = dashboardLinks(load);
  if (links.length === 0) return null;
  const items = links.map((l) => html`<a href="${l.file}">${l.label}</a>`);
  return html`<p class="dashboards">k6 web dashboards (open beside this file): ${joinHtml(items, ' · ')}</p>`;
}

export function dashboardLinksMd(load: LoadResult): string | null {
  const links = dashboardLinks(load);
  if (links.length === 0) return null;
  // Relative links work where the report folder is opened (a CI artefact, a checkout), not in a step summary.
  return `**k6 web dashboards** (files beside this report): ${links.map((l) => `[${mdCode(l.label)}](${l.file})`).join(' · ')}`;
}
