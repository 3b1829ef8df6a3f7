// k6's web-dashboard exports: one self-contained HTML file per k6 process, written beside the
// reports, named here once so that what k6 is told to write and what the report links are the same.

import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `k6-dashboard-throughput.html` for the process that ran the `throughput` bundle (or one of its segments). */
export const dashboardFileName = (processName: string): string => `k6-dashboard-${processName}.html`;

/**
 * The exports k6 really wrote for these processes, as names relative to `dir` (the report folder,
 * where report.html links them). k6 writes none for a run too short to have one data point.
 */
export function writtenDashboards(dir: string | undefined, processNames: readonly string[]): string[] {
  if (dir === undefined) return [];
  return processNames.map(dashboardFileName).filter((name) => existsSync(join(dir, name)));
}
