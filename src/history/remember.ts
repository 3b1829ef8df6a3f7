// The history's part of a run, between building the report and writing it: this run's record,
// its comparison with the stored runs of the same target, and the trends for the charts. Pure:
// the caller appends the record (HistoryStore.append) and writes the report.

import type { RegressionPolicy, SinceLastRun } from '../report/sections/since/model.js';
import { regressionReasons, type Report } from '../report/model.js';
import { printableDeep } from '../report/common/printable.js';
import { comparison, sameTarget } from './compare.js';
import { METHOD } from './noise.js';
import { applyPolicy, outcomeOf } from './policy.js';
import { toRecord, type HistoryRecord } from './record.js';
import { trendsOf } from './trends.js';

export interface Remembered {
  report: Report;
  record: HistoryRecord;
}

export function remember(
  report: Report,
  stored: readonly HistoryRecord[],
  policy: RegressionPolicy,
  warnings: readonly string[] = [],
): Remembered {
  const record = toRecord(report);
  const past = sameTarget(stored, record);
  const last = past[past.length - 1];
  const compared = last ? comparison(record, past, policy.runs) : { findings: [], notCompared: [] };
  const changes = applyPolicy(compared.findings, policy);
  const since: SinceLastRun = {
    history: last ? 'compared' : 'none',
    runs_compared: Math.min(past.length, policy.runs),
    ...(last
      ? { last_run: { started_at: last.started_at, verdict: last.verdict, tool_version: last.tool_version } }
      : {}),
    changes,
    ...(compared.notCompared.length ? { not_compared: compared.notCompared } : {}),
    outcome: outcomeOf(changes),
    method: METHOD,
    ...(warnings.length ? { warnings: [...warnings] } : {}),
  };
  // A change the policy fails fails the run: said in the verdict, which the exit code is read from.
  // The record keeps the conformance verdict it was made with, before this comparison.
  const reasons = [...report.verdict_reasons, ...regressionReasons(since)];
  // Stored values come from a file anyone with the folder could edit: printable, like the rest of the report.
  const shown = printableDeep<Report>(
    {
      ...report,
      verdict: since.outcome === 'fail' ? 'fail' : report.verdict,
      verdict_reasons: reasons,
      since_last_run: since,
      ...(last ? { trends: trendsOf(record, past, policy.runs) } : {}),
    },
    { multiline: true },
  );
  return { report: shown, record };
}
