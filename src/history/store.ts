// The history file: JSON Lines, one record per run, mode 0600, beside the ledger. Opened (and any
// refusal found) before the run's first request; written once at the end, atomically, so a run
// that dies mid-write leaves the old file whole. Runs may share the file and end together (parallel
// CI jobs, one cache): the write holds a lock and adds this run's record to the file as it is then,
// not as it was when the run began, so no run's record is lost. A bad file never costs a run its record:
//   - a corrupt or cut-short line is skipped with one warning; the file is kept aside as
//     <file>.corrupt and rewritten without it;
//   - a file others can read or write, a symbolic link, or one written by a newer history format,
//     is refused (exit 2) before anything runs, and left as it is.

import { existsSync, statSync } from 'node:fs';
import { HarnessError } from '../errors.js';
import { withFileLock } from '../fs/file-lock.js';
import { makePrivateFolder, refuseSymlink, writePrivateFile } from '../fs/private-file.js';
import { readUserFile } from '../fs/user-file.js';
import { HISTORY_SCHEMA, HISTORY_SCHEMA_PREFIX, isRecord, type HistoryRecord } from './record.js';

export const HISTORY_FIX = 'point --history (or history: in the config) at another file, or pass --history off';

/** A year of runs every 6 hours, and then some: older records give way. */
export const MAX_RECORDS = 2000;
// About 1 KB a record at most; far more is not a history this harness wrote.
const MAX_BYTES = 16 * 1024 * 1024;

/** The file as read: its records, and what was wrong with it. */
interface HistoryText {
  records: HistoryRecord[];
  /** Line numbers (from 1) that are not a record. */
  bad: number[];
  /** The last line has no end: a write was interrupted. */
  cutShort: boolean;
}

export class HistoryStore {
  private constructor(
    readonly path: string | null,
    /** Oldest first. */
    readonly records: readonly HistoryRecord[],
    /** Said on the terminal and in the report: lines that were skipped. */
    readonly warnings: readonly string[],
  ) {}

  static disabled(): HistoryStore {
    return new HistoryStore(null, [], []);
  }

  static open(path: string | null): HistoryStore {
    if (path === null) return HistoryStore.disabled();
    // Before anything else: the mode check and its chmod advice would be about the link's target.
    refuseSymlink(path, 'history', HISTORY_FIX);
    if (!existsSync(path)) return new HistoryStore(path, [], []);
    const text = readHistory(path);
    const mode = statSync(path).mode & 0o777;
    if (mode & 0o077) {
      throw new HarnessError(
        'FILE_UNUSABLE',
        `history: ${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}); run \`chmod 600 ${path}\`, or pass --history off`,
      );
    }
    const { records, bad, cutShort } = parseHistory(path, text);
    const warnings: string[] = [];
    if (bad.length)
      warnings.push(
        `history ${path}: line${bad.length > 1 ? 's' : ''} ${shortList(bad)} ${bad.length > 1 ? 'are' : 'is'} not a history record and skipped; the file is kept as ${path}.corrupt`,
      );
    if (cutShort) warnings.push(`history ${path}: the last line is cut short (a write was interrupted) and skipped`);
    return new HistoryStore(path, records, warnings);
  }

  get enabled(): boolean {
    return this.path !== null;
  }

  /**
   * The file's records as they are now (other runs may have added theirs since this one opened it)
   * and this one, written atomically with mode 0600 under the file's lock (the oldest dropped past
   * MAX_RECORDS). Throws when the file cannot take it; the caller keeps the record elsewhere.
   */
  append(record: HistoryRecord): void {
    const path = this.path;
    if (path === null) return;
    makePrivateFolder(path);
    withFileLock(path, () => {
      refuseSymlink(path, 'history', HISTORY_FIX);
      const text = existsSync(path) ? readHistory(path) : '';
      const now = parseHistory(path, text);
      if (now.bad.length) writePrivateFile(`${path}.corrupt`, text);
      writePrivateFile(
        path,
        [...now.records, record]
          .slice(-MAX_RECORDS)
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      );
    });
  }
}

const readHistory = (path: string): string =>
  readUserFile(path, { what: 'history', maxBytes: MAX_BYTES, fix: HISTORY_FIX });

/** The records in the file's text; a record of another format version is refused (exit 2), never overwritten. */
function parseHistory(path: string, text: string): HistoryText {
  const refuse = (why: string) => new HarnessError('FILE_UNUSABLE', `history: ${path} ${why}; ${HISTORY_FIX}`);
  const records: HistoryRecord[] = [];
  const bad: number[] = [];
  const lines = text.split('\n');
  let cutShort = false;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      // The last line without its newline: a write that was interrupted.
      if (i === lines.length - 1) cutShort = true;
      else bad.push(i + 1);
      return;
    }
    const schema = (parsed as { schema?: unknown } | null)?.schema;
    if (typeof schema === 'string' && schema.startsWith(HISTORY_SCHEMA_PREFIX) && schema !== HISTORY_SCHEMA) {
      throw refuse(
        `line ${i + 1} is a ${schema} record, written by another version of ces-harness (this one reads ${HISTORY_SCHEMA}); it is left as it is`,
      );
    }
    if (isRecord(parsed)) records.push(parsed);
    else bad.push(i + 1);
  });
  return { records, bad, cutShort };
}

const shortList = (n: number[]) =>
  n.length > 5 ? `${n.slice(0, 5).join(', ')} and ${n.length - 5} more` : n.join(', ');
