// What k6 leaves in the report folder (its summaries, web-dashboard exports, any file output the
// config points there) is written by k6, not by the harness's renderers, so it is redacted here
// in place before the run ends: k6 knows the client secret and every token it fetched, and a
// script's log line or a failed check's body can carry them.

import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../http/redact.js';

// A folder k6 writes is shallow; the bound only keeps a symlink loop or a mistaken --report-dir
// from turning this into a walk of the disk.
const MAX_DEPTH = 4;
// Larger files (a long run's --out json) are rewritten in line-sized pieces instead of whole.
const WHOLE_FILE_BYTES = 32 * 1024 * 1024;

/** Rewrites every regular file under `dir` through the redactor; returns the files changed. */
export function redactArtefacts(dir: string, redactor: Redactor, depth = 0): string[] {
  if (depth > MAX_DEPTH) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const changed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) changed.push(...redactArtefacts(path, redactor, depth + 1));
    else if (stat.isFile() && redactFile(path, redactor, stat.size)) changed.push(path);
  }
  return changed;
}

function redactFile(path: string, redactor: Redactor, size: number): boolean {
  const text = readFileSync(path, 'utf8');
  // Compressed or binary output is left alone: rewriting it as text would corrupt it.
  if (text.includes('\u0000')) return false;
  const safe =
    size <= WHOLE_FILE_BYTES
      ? redactor.file(text, { fromOutside: true })
      : text
          .split('\n')
          .map((line) => redactor.foreign(line))
          .join('\n');
  if (safe === text) return false;
  // Atomic, so an interrupted rewrite never leaves half a file, nor the unredacted one beside it.
  const tmp = `${path}.${process.pid}.redacting`;
  try {
    writeFileSync(tmp, safe, { mode: 0o600 });
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
  return true;
}
