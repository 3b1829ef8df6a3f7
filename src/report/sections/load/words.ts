// What report.md and report.html both say in the Load section: the links to k6's web-dashboard
// exports beside the report. Only a plain file name of the harness's own pattern becomes a link:
// a report.json edited by hand or another tool must not turn the page into a link to anywhere.

import type { LoadResult, SizedLoad } from '../../model.js';

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

/**
 * Why a scenario that ran has no request-rate chart: its timeline comes from k6's web-dashboard
 * export (src/k6/timeline.ts), which is left out rather than drawn wrong. Undefined when every
 * scenario that ran has one.
 */
export function missingTimelineNote(load: LoadResult): string | undefined {
  const untimed = load.scenarios.filter((s) => !s.error && (s.timeline?.length ?? 0) === 0).map((s) => s.scenario);
  if (untimed.length === 0) return undefined;
  return (
    `No request-rate chart for ${untimed.join(', ')}: k6's web-dashboard export gave no one-second samples ` +
    "adding up to its summary's request count (a run under 2 s, over 48 min where k6 samples coarser, or no export)."
  );
}

/** What the terminal and both reports say of a scenario `run` ran again at a rate sized from the limit. */
export const sizedNote = (s: SizedLoad): string =>
  `run again at ${s.rps}/s, sized from the ${s.policy_rps} req/s ${s.policy_proven ? 'this run proved' : 'this run recommends (not proven)'}: the default ${s.default_rps}/s was more than this service's rate limit lets through`;

/**
 * How long the load ran, the span its verdict covers: "5 s each", "5–10 s each"; null when no
 * scenario recorded it (a report written before durations were).
 */
export function loadSpanText(load: LoadResult): string | null {
  const spans = load.scenarios.flatMap((s) => (s.duration_s === undefined ? [] : [s.duration_s]));
  if (spans.length === 0) return null;
  const [low, high] = [Math.min(...spans), Math.max(...spans)];
  return `${low === high ? `${low} s` : `${low}–${high} s`} each`;
}
