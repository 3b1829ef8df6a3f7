// The history step of a target command: a record the history file cannot take is not lost, it
// goes into the report folder; and an interrupted run is compared but not stored.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNSAVED_RECORD_FILE } from '../../src/history/record.js';
import { historyStep } from '../../src/history/step.js';
import type { Terminal } from '../../src/cli/terminal.js';
import { HistoryStore } from '../../src/history/store.js';
import { DEFAULT_REGRESSION_POLICY } from '../../src/report/sections/since/model.js';
import { buildReport } from '../../src/report/build.js';

const report = buildReport({
  version: '0.1.0',
  target: { environment: 'sandbox', base_url: 'https://sandbox.example' },
  startedAt: new Date('2026-11-23T10:00:00Z'),
  finishedAt: new Date('2026-11-23T10:00:05Z'),
  checks: [
    {
      id: 'token.type-bearer',
      title: 't',
      spec: '2',
      level: 'must',
      status: 'pass',
      message: 'ok',
      duration_ms: 1,
      evidence: [],
      facts: { token_type: '"Bearer"' },
    },
  ],
});

function terminal(): Terminal & { lines: string[] } {
  const lines: string[] = [];
  return {
    color: false,
    lines,
    out: (l) => lines.push(String(l)),
    err: (l) => lines.push(String(l)),
    progress: () => {},
  };
}

describe('historyStep', () => {
  it('puts the record in the report folder when the history file cannot take it, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ces-history-step-'));
    // A file where the history's folder should be: the save fails (EEXIST on its mkdir), even for root.
    writeFileSync(join(dir, 'not-a-folder'), '');
    const path = join(dir, 'not-a-folder', 'history.jsonl');
    const t = terminal();
    const step = historyStep(report, HistoryStore.open(path), DEFAULT_REGRESSION_POLICY, t, false);
    expect(Object.keys(step.files)).toEqual([UNSAVED_RECORD_FILE]);
    expect(JSON.parse(step.files[UNSAVED_RECORD_FILE]!)).toMatchObject({
      schema: 'ces-harness/history@1',
      checks: { 'token.type-bearer': { status: 'pass' } },
    });
    expect(t.lines.find((l) => l.includes('could not save'))).toMatch(
      new RegExp(
        `^ces-harness: warning: history: could not save this run to ${path} \\(EEXIST: .+\\); its record is in the report folder as ${UNSAVED_RECORD_FILE}$`,
      ),
    );
    expect(step.report.since_last_run?.warnings).toHaveLength(1);
    expect(step.report.verdict).toBe('pass');
  });

  it('compares an interrupted run but does not store it', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-history-step-')), 'history.jsonl');
    const t = terminal();
    historyStep(report, HistoryStore.open(path), DEFAULT_REGRESSION_POLICY, t, true);
    expect(() => readFileSync(path)).toThrow(/ENOENT/);
    expect(t.lines).toContain(`history: this run was interrupted, so its record is not added to ${path}`);
  });
});
