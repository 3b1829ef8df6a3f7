// handleSummary for every scenario: k6's summary data as JSON to CES_SUMMARY_FILE (the harness
// folds it into report.json via src/k6/summary.ts), and a few lines on stdout for a human. Nothing
// secret is in either: setup() data is dropped (it could hold a token), and the text names
// metrics, never values of requests.

import type { ScenarioConfig } from './config';
import { ignoredOverrides } from './options';

/** The parts of k6's (legacy, default) handleSummary argument this file reads. */
export interface SummaryData {
  metrics: Record<
    string,
    { type: string; contains?: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }
  >;
  root_group?: { checks?: Array<{ name: string; passes: number; fails: number }>; groups?: unknown[] };
  state?: { testRunDurationMs?: number };
  setup_data?: unknown;
  [key: string]: unknown;
}

/** What a scenario adds to its summary for the report (src/k6/summary.ts reads `ces`). */
export interface ScenarioNotes {
  notes?: string[];
  extra?: (data: SummaryData) => Record<string, number | string>;
}

const fmt = (n: number | undefined, digits = 1): string =>
  n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);

function text(scenario: string, data: SummaryData, notes: string[]): string {
  const m = data.metrics;
  const reqs = m.http_reqs?.values;
  const dur = m.http_req_duration?.values;
  const checks = m.checks?.values;
  const lines = [
    `ces-harness k6 ${scenario}: ${reqs?.count ?? 0} requests (${fmt(reqs?.rate)}/s), ` +
      `p95 ${fmt(dur?.['p(95)'])} ms, checks ${checks?.passes ?? 0}/${(checks?.passes ?? 0) + (checks?.fails ?? 0)} passed`,
  ];
  const failed: string[] = [];
  let total = 0;
  for (const [name, metric] of Object.entries(m)) {
    for (const [expr, t] of Object.entries(metric.thresholds ?? {})) {
      total++;
      if (!t.ok) failed.push(`${name} ${expr}`);
    }
  }
  lines.push(`  thresholds: ${total - failed.length}/${total} met`);
  for (const f of failed) lines.push(`  ✗ ${f}`);
  for (const c of data.root_group?.checks ?? [])
    if (c.fails > 0) lines.push(`  ✗ check "${c.name}": ${c.fails} of ${c.passes + c.fails} failed`);
  for (const n of notes) lines.push(`  note: ${n}`);
  return `${lines.join('\n')}\n`;
}

export function summaryHandler(scenario: string, cfg: ScenarioConfig, add: ScenarioNotes = {}) {
  return (data: SummaryData): Record<string, string> => {
    const notes = [...(add.notes ?? [])];
    if (ignoredOverrides.length > 0)
      notes.push(`threshold overrides for metrics this scenario lacks were ignored: ${ignoredOverrides.join(', ')}`);
    const { setup_data: _dropped, ...rest } = data;
    const out = { ...rest, ces: { scenario, run_id: cfg.runId ?? null, notes, extra: add.extra?.(data) ?? {} } };
    const files: Record<string, string> = { stdout: text(scenario, data, notes) };
    if (cfg.summaryFile !== undefined) files[cfg.summaryFile] = JSON.stringify(out, null, 2);
    return files;
  };
}
