// The only place that writes the report folder. Every file is rendered by a pure renderer and then
// redacted once more here, so a secret that slipped into a message still never reaches the disk.

import { mkdirSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Redactor } from '../http/redact.js';
import type { Report } from '../report/model.js';
import { renderers } from '../report/index.js';

export function defaultReportDir(cwd: string, environment: string, at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  const base = resolve(cwd, 'reports', `${stamp}-${environment.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
  // Two runs in the same second (CI matrix, a quick re-run) must not overwrite each other.
  let dir = base;
  for (let n = 2; existsSync(dir); n++) dir = `${base}-${n}`;
  return dir;
}

export function writeReportFolder(dir: string, report: Report, redactor: Redactor, extra: Record<string, string> = {}): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  // Redacted before rendering too: a secret with `&` or `<` in it is escaped by the HTML and XML
  // renderers and would no longer match afterwards.
  const safe = redactor.deep(report);
  for (const [file, render] of Object.entries(renderers)) {
    const path = join(dir, file);
    writeFileSync(path, redactor.text(render(safe)));
    written.push(path);
  }
  for (const [file, content] of Object.entries(extra)) {
    const path = join(dir, file);
    writeFileSync(path, redactor.text(content));
    written.push(path);
  }
  return written;
}
