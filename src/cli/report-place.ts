// Where the report folder goes, checked before the first request: --report-dir or a dated folder
// under reports/, writable, with nothing in the way of the files the run writes there. Apart from
// the writing (report-folder.ts), which needs the renderers: those load while the checks run.

import { lstatSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureWritableDir, removeEmptyDirs, unwritable, type OutputPlace } from '../fs/writable.js';
import { UNSAVED_RECORD_FILE } from '../history/record.js';
import { REPORT_FILE_NAMES } from '../report/model.js';

/** Where the dated report folders go unless --report-dir says otherwise. */
export const REPORTS_FOLDER = 'reports';

/**
 * What the run writes straight into its report folder: the renderers' files, and the history
 * record a full history leaves there. k6's summaries go under K6_FOLDER, its dashboards beside these.
 */
export const REPORT_FILES: readonly string[] = [...REPORT_FILE_NAMES, UNSAVED_RECORD_FILE];
const K6_FOLDER = 'k6';

/** Bounds the search for a free name; thousands of runs in one second is no real case. */
const MAX_SAME_SECOND = 1000;

export interface ReportPlace {
  /** The folders the check created (and the claimed one), for removal if no report gets written. */
  created: string[];
  /** This run's report folder, once the environment is known. */
  claim(environment: string, at: Date): string;
}

/**
 * Before the first request: the report must have somewhere to go. --report-dir is created and
 * written to now; without it, the reports/ folder is, and the dated folder is claimed later.
 */
export function prepareReportPlace(reportDir: string | undefined, cwd: string): ReportPlace {
  if (reportDir) {
    const dir = resolve(cwd, reportDir);
    const created = ensureWritableDir(dir, { what: '--report-dir', fix: 'give a folder you can write to' });
    try {
      ensureReportEntries(dir, { what: '--report-dir', fix: 'move it away, or give another --report-dir' });
    } catch (err) {
      removeEmptyDirs(created);
      throw err;
    }
    return { created, claim: () => dir };
  }
  const parent = resolve(cwd, REPORTS_FOLDER);
  const created = ensureWritableDir(parent, {
    what: 'report folder',
    fix: 'run from a folder you can write to, or pass --report-dir DIR',
  });
  return {
    created,
    claim: (environment, at) => {
      const dir = claimReportDir(parent, environment, at);
      created.push(dir);
      return dir;
    },
  };
}

/**
 * An existing folder may already hold entries under the names the run writes (an earlier run's
 * report is fine, it is replaced): a folder where a file goes, or a file where k6's folder goes,
 * would fail the write after the last request, so it is found before the first.
 */
function ensureReportEntries(dir: string, place: OutputPlace): void {
  const kindOf = (name: string) => {
    try {
      const st = lstatSync(join(dir, name));
      return st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other';
    } catch {
      return undefined; // missing: the run creates it
    }
  };
  for (const name of REPORT_FILES) {
    const kind = kindOf(name);
    if (kind === 'folder' || kind === 'other')
      throw unwritable(place, dir, `${name} there is a ${kind === 'folder' ? 'folder' : 'special file'}, not a file`);
  }
  if (kindOf(K6_FOLDER) === 'file' || kindOf(K6_FOLDER) === 'other')
    throw unwritable(place, dir, `${K6_FOLDER} there is a file, not the folder k6's summaries go in`);
}

/**
 * Creates this run's folder `<parent>/<stamp>-<env>` (then -2, -3…) and returns it. Two runs in the
 * same second (CI matrix, a quick re-run) must not share one: mkdir without `recursive` fails on
 * an existing folder, so whichever run creates a name first owns it, with no window in between.
 */
export function claimReportDir(parent: string, environment: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  const base = join(parent, `${stamp}-${environment.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
  for (let n = 1; n <= MAX_SAME_SECOND; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      mkdirSync(dir);
      return dir;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      // A name too long for the file system (ENAMETOOLONG from a long environment name), say.
      if (code !== 'EEXIST')
        throw unwritable(
          { what: 'report folder', fix: 'pass --report-dir DIR, or use a shorter environment name' },
          dir,
          `cannot create it (${code})`,
        );
    }
  }
  throw new Error(`${base}: ${MAX_SAME_SECOND} report folders for one second already exist`);
}
