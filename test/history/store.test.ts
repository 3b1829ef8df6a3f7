// The history file and its bad inputs: each gets one line and a documented outcome, never a crash,
// and never costs the run its record (docs/history.md, "When the history file is bad").

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { HistoryStore, MAX_RECORDS } from '../../src/history/store.js';
import { steadyRecord } from './records.js';

const folder = () => mkdtempSync(join(tmpdir(), 'ces-history-'));
const lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n');
const write = (path: string, text: string, mode = 0o600) => (
  writeFileSync(path, text, { mode }),
  chmodSync(path, mode)
);
const refusal = (path: string): HarnessError => {
  try {
    HistoryStore.open(path);
  } catch (err) {
    return err as HarnessError;
  }
  return expect.fail('opened without a refusal');
};

describe('HistoryStore', () => {
  it('starts empty where there is no file, and writes JSON Lines with mode 0600 in a 0700 folder', () => {
    const path = join(folder(), '.ces-harness', 'history.jsonl');
    const store = HistoryStore.open(path);
    expect(store.records).toEqual([]);
    store.append(steadyRecord(0));
    HistoryStore.open(path).append(steadyRecord(1));
    expect(lines(path).map((l) => JSON.parse(l).started_at)).toEqual([
      steadyRecord(0).started_at,
      steadyRecord(1).started_at,
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
  });

  it('skips a corrupt line with one warning, keeps the file aside as .corrupt, and still saves the run', () => {
    const path = join(folder(), 'history.jsonl');
    write(path, `${JSON.stringify(steadyRecord(0))}\n{not json\n["an array"]\n${JSON.stringify(steadyRecord(1))}\n`);
    const store = HistoryStore.open(path);
    expect(store.records).toHaveLength(2);
    expect(store.warnings).toEqual([
      `history ${path}: lines 2, 3 are not a history record and skipped; the file is kept as ${path}.corrupt`,
    ]);
    store.append(steadyRecord(2));
    expect(lines(path)).toHaveLength(3);
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toContain('{not json');
  });

  it('skips records of the right schema but a wrong shape (a hand-edited file), never throwing later', () => {
    const path = join(folder(), 'history.jsonl');
    const good = steadyRecord(0);
    const bent = [
      { ...good, checks: { 'token.issue': null } },
      { ...good, checks: { 'token.issue': { status: 'pass', facts: { x: { nested: true } } } } },
      { ...good, load: { throughput: { p95_ms: 'fast' } } },
      { ...good, target: 'sandbox' },
      { ...good, rate_limit: [] },
    ];
    write(path, [good, ...bent].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const store = HistoryStore.open(path);
    expect(store.records).toHaveLength(1);
    expect(store.warnings).toEqual([
      `history ${path}: lines 2, 3, 4, 5, 6 are not a history record and skipped; the file is kept as ${path}.corrupt`,
    ]);
  });

  it('drops a last line cut short by an interrupted write, with one warning, and saves the run', () => {
    const path = join(folder(), 'history.jsonl');
    write(path, `${JSON.stringify(steadyRecord(0))}\n${JSON.stringify(steadyRecord(1)).slice(0, 40)}`);
    const store = HistoryStore.open(path);
    expect(store.records).toHaveLength(1);
    expect(store.warnings).toEqual([
      `history ${path}: the last line is cut short (a write was interrupted) and skipped`,
    ]);
    store.append(steadyRecord(2));
    expect(lines(path)).toHaveLength(2);
  });

  it('refuses a file other users can read (exit 2), and leaves it as it is', () => {
    const path = join(folder(), 'history.jsonl');
    write(path, `${JSON.stringify(steadyRecord(0))}\n`, 0o644);
    const err = refusal(path);
    expect(err).toBeInstanceOf(HarnessError);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `history: ${path} is open to other users (mode 0644); run \`chmod 600 ${path}\`, or pass --history off`,
    );
    expect(statSync(path).mode & 0o777).toBe(0o644);
  });

  it('refuses a file written by another history version (exit 2), and never overwrites it', () => {
    const path = join(folder(), 'history.jsonl');
    const text = `${JSON.stringify(steadyRecord(0))}\n${JSON.stringify({ ...steadyRecord(1), schema: 'ces-harness/history@2' })}\n`;
    write(path, text);
    const err = refusal(path);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(
      /line 2 is a ces-harness\/history@2 record, written by another version of ces-harness \(this one reads ces-harness\/history@1\)/,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('refuses a folder where the file should be (exit 2)', () => {
    const path = join(folder(), 'history.jsonl');
    mkdirSync(path);
    expect(refusal(path).code).toBe('FILE_UNUSABLE');
  });

  it('adds its record to the file as it is at the end of the run, not as it was read at the start', () => {
    const path = join(folder(), 'history.jsonl');
    // Two runs open the same (empty) history, then end one after the other: both records stay.
    const [a, b] = [HistoryStore.open(path), HistoryStore.open(path)];
    a.append(steadyRecord(0));
    b.append(steadyRecord(1));
    expect(lines(path).map((l) => JSON.parse(l).started_at)).toEqual([
      steadyRecord(0).started_at,
      steadyRecord(1).started_at,
    ]);
  });

  it('refuses a symbolic link (exit 2) before looking at its target, which stays as it is', () => {
    const dir = folder();
    const victim = join(dir, 'passwd');
    write(victim, 'root:x:0:0::/root:/bin/sh\n', 0o644);
    const path = join(dir, 'history.jsonl');
    symlinkSync(victim, path);
    const err = refusal(path);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `history: ${path} is a symbolic link, which the harness does not follow (a write or a chmod would change the file it points to); point --history (or history: in the config) at another file, or pass --history off`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0::/root:/bin/sh\n');
  });

  it('replaces a symbolic link planted at FILE.corrupt, never writing through it', () => {
    const dir = folder();
    const victim = join(dir, 'victim');
    write(victim, 'precious\n', 0o644);
    const path = join(dir, 'history.jsonl');
    write(path, `{not json\n${JSON.stringify(steadyRecord(0))}\n`);
    symlinkSync(victim, `${path}.corrupt`);
    HistoryStore.open(path).append(steadyRecord(1));
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(`${path}.corrupt`, 'utf8')).toContain('{not json');
    expect(statSync(`${path}.corrupt`).mode & 0o777).toBe(0o600);
  });

  it(`keeps the newest ${MAX_RECORDS} records`, () => {
    const path = join(folder(), 'history.jsonl');
    write(path, Array.from({ length: MAX_RECORDS }, (_, i) => JSON.stringify(steadyRecord(i))).join('\n') + '\n');
    HistoryStore.open(path).append(steadyRecord(MAX_RECORDS));
    const kept = lines(path);
    expect(kept).toHaveLength(MAX_RECORDS);
    expect(JSON.parse(kept[0]!).started_at).toBe(steadyRecord(1).started_at);
    expect(existsSync(`${path}.corrupt`)).toBe(false);
  });
});
