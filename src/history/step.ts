// The run history between the report and the report folder: compare this run with the stored runs
// of its target, append its record, and say what changed. A record that cannot be saved is not
// lost: the report folder keeps it (history-record.jsonl) and the terminal says where.

import type { RegressionPolicy } from '../report/sections/since/model.js';
import type { Report } from '../report/model.js';
import type { StageLines } from '../stages/run-io.js';
import { notComparedLines } from '../report/sections/since/words.js';
import { UNSAVED_RECORD_FILE } from './record.js';
import { remember } from './remember.js';
import type { HistoryStore } from './store.js';

export interface HistoryStep {
  /** The report with `since_last_run`, and a verdict that fails when the `regressions:` policy does. */
  report: Report;
  /** Files for the report folder: the record, when the history file could not take it. */
  files: Record<string, string>;
}

export function historyStep(
  report: Report,
  history: HistoryStore,
  regressions: RegressionPolicy,
  terminal: Pick<StageLines, 'out' | 'err'>,
  interrupted: boolean,
): HistoryStep {
  if (!history.enabled) return { report, files: {} };
  const { report: compared, record } = remember(report, history.records, regressions, history.warnings);
  const since = compared.since_last_run!;
  const files: Record<string, string> = {};
  if (interrupted) {
    // A partial run's figures would sit in every later band: compared, never stored.
    terminal.err(`history: this run was interrupted, so its record is not added to ${history.path}`);
  } else {
    try {
      history.append(record);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      files[UNSAVED_RECORD_FILE] = JSON.stringify(record) + '\n';
      const warning = `history: could not save this run to ${history.path} (${why}); its record is in the report folder as ${UNSAVED_RECORD_FILE}`;
      terminal.err(`ces-harness: warning: ${warning}`);
      since.warnings = [...(since.warnings ?? []), warning];
    }
  }
  for (const line of changeLines(compared)) terminal.out(line);
  return { report: compared, files };
}

function changeLines(report: Report): string[] {
  const since = report.since_last_run!;
  if (since.history === 'none')
    return ['since the last run: no history yet (this run is the first one stored for this target)'];
  const regressions = since.changes.filter((c) => c.action !== 'info');
  const head = `since the last run (${since.runs_compared} stored run${since.runs_compared === 1 ? '' : 's'}): ${regressions.length ? `${regressions.length} regression${regressions.length === 1 ? '' : 's'}${since.outcome === 'fail' ? ', which the regressions: policy fails' : ''}` : 'no regression'}`;
  return [
    head,
    ...since.changes.map((c) => `  ${c.action === 'info' ? 'better' : c.action} ${c.kind}: ${c.text}`),
    ...notComparedLines(since).map((l) => `  ${l}`),
  ];
}
