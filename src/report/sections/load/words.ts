// What report.md and report.html both say in the Load section: the links to k6's web-dashboard
// exports beside the report. Only a plain file name of the harness's own pattern becomes a link:
// a report.json edited by hand or another tool must not turn the page into a link to anywhere.

import type { LoadResult } from '../../model.js';

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
