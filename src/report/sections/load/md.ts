// report.md's Load section: one row per scenario with its thresholds, the links to k6's web
// dashboards, and the scenarios' own figures as findings (the charts are report.html's alone).

import { scenarioCells, thresholdText } from '../../common/format.js';
import { mdCode, mdEscape, mdInline, mdTable } from '../../common/md-text.js';
import { loadHeadline } from '../../common/select.js';
import type { LoadResult, LoadScenarioResult } from '../../model.js';
import { findingsBlock } from '../findings/md.js';
import { dashboardLinks, loadSpanText } from './words.js';

function dashboardLinksMd(load: LoadResult): string | null {
  const links = dashboardLinks(load);
  if (links.length === 0) return null;
  // Relative links work where the report folder is opened (a CI artefact, a checkout), not in a step summary.
  return `**k6 web dashboards** (files beside this report): ${links.map((l) => `[${mdCode(l.label)}](${l.file})`).join(' · ')}`;
}

function thresholdsCell(s: LoadScenarioResult): string {
  if (s.thresholds.length === 0) return '–';
  return s.thresholds.map((t) => `${t.ok ? '✓' : '✗'} ${mdCode(thresholdText(t))}`).join('<br>');
}

function scenarioRow(s: LoadScenarioResult): string[] {
  const name = mdCode(s.scenario);
  if (s.error) return [name, `💥 did not run: ${mdInline(s.error)}`, '', '', '', '', '', '', '', '', thresholdsCell(s)];
  return [name, ...scenarioCells(s), thresholdsCell(s)];
}

export function loadSectionMd(load: LoadResult): string {
  const verdict = `${load.ok ? '✅' : '❌'} ${loadHeadline(load)}`;
  const span = loadSpanText(load);
  const head = `${verdict}${span === null ? '' : ` · ${span}`} · k6 ${mdEscape(load.k6_version)} · run ${mdCode(load.run_id)}`;
  const table = mdTable(
    ['Scenario', 'Requests', 'Rate', 'p50', 'p95', 'p99', 'max', 'Errors', 'Checks', 'Dropped', 'Thresholds'],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    load.scenarios.map(scenarioRow),
  );
  const blocks = [head, dashboardLinksMd(load), table, findingsBlock(load)];
  return `### Load\n\n${blocks.filter((b) => b !== null).join('\n\n')}`;
}
