// Output folders are made and proven writable before the run starts, so that a run never learns
// at its very end, after every request, that its report (or ledger) has nowhere to go.

import { mkdirSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { HarnessError } from '../errors.js';

export interface OutputPlace {
  /** Names the place in the message: `--report-dir`, `--tls-dir`, `ledger`. */
  what: string;
  /** What to do instead, ending the one line. */
  fix: string;
}

const errno = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? 'error';

const PLAIN: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'disk full',
  ENOENT: 'not possible there',
};
const plain = (code: string) => (PLAIN[code] ? `${PLAIN[code]}, ${code}` : code);

export const unwritable = (place: OutputPlace, path: string, why: string) =>
  new HarnessError('OUTPUT_UNWRITABLE', `${place.what} ${path}: ${why}; ${place.fix}`);

/**
 * Makes `dir` a folder this process can write in, creating what is missing one level at a time
 * (Node's recursive mkdir never returns for a path under /proc). Returns the folders it created,
 * outermost first, so a run that ends before writing anything can take them away again.
 */
export function ensureWritableDir(
  dir: string,
  place: OutputPlace,
  options: { mode?: number; named?: string } = {},
): string[] {
  const target = resolve(dir);
  // The path the user gave (a file's, for the ledger): messages name it, and then what is wrong.
  const named = options.named ?? target;
  const missing: string[] = [];
  for (let p = target; ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      const code = errno(err);
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(p) !== p) {
        missing.unshift(p);
        continue;
      }
      throw unwritable(place, named, `cannot look at ${p} (${plain(code)})`);
    }
    if (!isDir)
      throw unwritable(place, named, p === named ? 'is a file, not a folder' : `${p} is a file, not a folder`);
    break;
  }
  const created: string[] = [];
  const fail = (why: string) => {
    removeEmptyDirs(created);
    return unwritable(place, named, why);
  };
  for (const p of missing) {
    try {
      mkdirSync(p, options.mode === undefined ? undefined : { mode: options.mode });
    } catch (err) {
      // Another run started in the same folder made it meanwhile (two `check`s at once both find
      // reports/ missing): it is there, and it is not ours to take away again.
      if (errno(err) === 'EEXIST' && isDirectory(p)) continue;
      throw fail(`cannot create ${p} (${plain(errno(err))})`);
    }
    created.push(p);
  }
  // Permission bits say little for root, ACLs or read-only mounts: write a file and see.
  const probe = join(target, `.ces-write-check-${process.pid}`);
  try {
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (err) {
    throw fail(`cannot write in ${target} (${plain(errno(err))})`);
  }
  return created;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Removes those of the given folders that are empty, last first; never throws. */
export function removeEmptyDirs(dirs: readonly string[]): void {
  for (const d of [...dirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      // not empty (or gone): it stays
    }
  }
}

/** A file the run will write: it must not be a folder, and its folder must be writable. */
export function ensureWritableFileLocation(path: string, place: OutputPlace, dirMode?: number): string[] {
  const target = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(target).isDirectory();
  } catch {
    // missing (or under a file, which the folder check below names)
  }
  if (isDir) throw unwritable(place, target, 'is a folder, not a file');
  return ensureWritableDir(dirname(target), place, {
    named: target,
    ...(dirMode === undefined ? {} : { mode: dirMode }),
  });
}
