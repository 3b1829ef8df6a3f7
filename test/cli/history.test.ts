// The run history through the built CLI against the emulator on 127.0.0.1 port 0: the first run
// says "no history yet", the policy decides the exit code, and a bad history file gets its one
// line and its documented outcome before any request (docs/history.md).

import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { emulatorProject } from '../helpers/emulator-project.js';
import { expectValidHistory, expectValidReport } from '../report/schema.js';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await createEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
});

const env = () => ({
  CES_CLIENT_ID: emulator.credentials.clientId,
  CES_CLIENT_SECRET: emulator.credentials.clientSecret,
});

/** A folder with a config for the emulator: `history.jsonl` beside it, and the `regressions:` given. */
function project(regressions = ''): {
  dir: string;
  history: string;
  run(...extra: string[]): ReturnType<typeof runCliInProcess>;
} {
  const { dir, config } = emulatorProject(emulator, 'ces-history-cli-', { top: [regressions] });
  let n = 0;
  return {
    dir,
    history: join(dir, 'history.jsonl'),
    run: (...extra) =>
      runCliInProcess(
        ['check', '--config', config, '--only', 'token.type-bearer', '--report-dir', join(dir, `r${++n}`), ...extra],
        { cwd: dir, env: env(), timeoutMs: 60_000 },
      ),
  };
}

const sinceOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')).since_last_run;

/** The stored records with token.type-bearer's fact changed, as if the service had said "bearer" before. */
function rewriteTokenType(history: string): void {
  const lines = readFileSync(history, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  for (const r of lines) r.checks['token.type-bearer'].facts.token_type = '"bearer"';
  writeFileSync(history, lines.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

describe('ces-harness check with a run history', () => {
  it('says "no history yet" on the first run, then compares; the record holds no secret', async () => {
    const p = project();
    const first = await p.run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('since the last run: no history yet');
    expect(sinceOf(join(p.dir, 'r1'))).toMatchObject({ history: 'none', changes: [] });
    const second = await p.run();
    expect(second.code, second.stderr).toBe(0);
    expect(sinceOf(join(p.dir, 'r2'))).toMatchObject({
      history: 'compared',
      runs_compared: 1,
      changes: [],
      outcome: 'none',
    });
    expect(readFileSync(join(p.dir, 'r2', 'report.md'), 'utf8')).toMatch(
      /^## .*\n\n### Since the last run\n\nNothing changed, judged against 1 stored run/,
    );
    const stored = readFileSync(p.history, 'utf8');
    expect(stored.trim().split('\n')).toHaveLength(2);
    expectValidHistory(p.history);
    expectValidReport(join(p.dir, 'r2'));
    expect(stored).not.toContain(emulator.credentials.clientSecret);
    expect(stored).not.toMatch(/tk_|"token":/);
  }, 120_000);

  it('warns on a changed fact by default (exit 0), and fails the run where regressions: says fail (exit 1)', async () => {
    for (const [policy, code, outcome] of [
      ['', 0, 'warn'],
      ['regressions:\n  fact: fail', 1, 'fail'],
    ] as const) {
      const p = project(policy);
      expect((await p.run()).code).toBe(0);
      rewriteTokenType(p.history);
      const res = await p.run();
      expect(res.code, `${policy}: ${res.stdout}${res.stderr}`).toBe(code);
      const since = sinceOf(join(p.dir, 'r2'));
      expect(since.outcome).toBe(outcome);
      expect(since.changes.map((c: { kind: string; text: string }) => `${c.kind}: ${c.text}`)).toEqual([
        'fact: token.type-bearer: token_type "bearer" → "Bearer"',
      ]);
      expect(res.stdout).toContain(`${outcome} fact: token.type-bearer: token_type "bearer" → "Bearer"`);
      // The verdict carries the exit code's reason (report.json agrees with the exit), and the last lines say it.
      const report = JSON.parse(readFileSync(join(p.dir, 'r2', 'report.json'), 'utf8'));
      expect(report.verdict).toBe(code === 0 ? 'pass' : 'fail');
      expect(report.verdict_reasons.map((r: { kind: string }) => r.kind)).toEqual(code === 0 ? [] : ['regression']);
      expect(/^exit 1: 1 change since the last run that the regressions: policy fails/m.test(res.stdout)).toBe(
        outcome === 'fail',
      );
      const junit = readFileSync(join(p.dir, 'r2', 'junit.xml'), 'utf8');
      expect(junit.includes('<failure message="token.type-bearer: token_type')).toBe(outcome === 'fail');
    }
  }, 120_000);

  it('six runs sharing the file and ending together all keep their record, and the file parses', async () => {
    const p = project();
    const runs = await Promise.all(Array.from({ length: 6 }, () => p.run()));
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/warning/);
    }
    const stored = readFileSync(p.history, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { started_at: string });
    const reported = [1, 2, 3, 4, 5, 6].map(
      (n) =>
        (JSON.parse(readFileSync(join(p.dir, `r${n}`, 'report.json'), 'utf8')) as { started_at: string }).started_at,
    );
    expect(stored.map((r) => r.started_at).sort()).toEqual(reported.sort());
    expect(existsSync(`${p.history}.lock`)).toBe(false);
  }, 180_000);

  it('--history off keeps no history and says nothing of one', async () => {
    const p = project();
    const res = await p.run('--history', 'off');
    expect(res.code).toBe(0);
    expect(existsSync(p.history)).toBe(false);
    expect(sinceOf(join(p.dir, 'r1'))).toBeUndefined();
  }, 60_000);

  it('a world-readable history: exit 2 with one line, before any token is asked for, the file untouched', async () => {
    const p = project();
    writeFileSync(p.history, '');
    chmodSync(p.history, 0o644);
    const before = emulator.issuedTokens().length;
    const res = await p.run();
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([
      `ces-harness: history: ${p.history} is open to other users (mode 0644); run \`chmod 600 ${p.history}\`, or pass --history off`,
    ]);
    expect(emulator.issuedTokens().length).toBe(before);
    expect(existsSync(join(p.dir, 'r1'))).toBe(false);
  }, 60_000);

  it('a corrupt or truncated history: one warning, the run goes on, and its record is saved', async () => {
    const p = project();
    expect((await p.run()).code).toBe(0);
    const good = readFileSync(p.history, 'utf8');
    writeFileSync(p.history, `garbage line\n${good}{"schema":"ces-harness/history@1","started`);
    const res = await p.run();
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(
      `ces-harness: warning: history ${p.history}: line 1 is not a history record and skipped; the file is kept as ${p.history}.corrupt`,
    );
    expect(res.stderr).toContain('the last line is cut short (a write was interrupted) and skipped');
    expect(readFileSync(p.history, 'utf8').trim().split('\n')).toHaveLength(2);
    expect(sinceOf(join(p.dir, 'r2'))).toMatchObject({ history: 'compared', runs_compared: 1 });
  }, 120_000);
});
