// The only place that writes the report folder. Every file is rendered by a pure renderer and then
// redacted once more here, so a secret that slipped into a message still never reaches the disk.
// Where the folder is, and that it can be written, is report-place.ts's, before the first request.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../http/redact.js';
import type { Report } from '../report/model.js';
import { renderers } from '../report/index.js';

export function writeReportFolder(
  dir: string,
  report: Report,
  redactor: Redactor,
  extra: Record<string, string> = {},
): string[] {
  // Redacted before rendering too: a secret with `&` or `<` in it is escaped by the HTML and XML
  // renderers and would no longer match afterwards.
  const safe = redactor.deep(report);
  const rendered = Object.fromEntries(Object.entries(renderers).map(([file, render]) => [file, render(safe)]));
  return writeFiles(dir, { ...rendered, ...extra }, redactor);
}

/** Files already rendered (k6's artefacts, `cutover`'s report), redacted once more on their way to disk. */
export function writeFiles(dir: string, files: Record<string, string>, redactor: Redactor): string[] {
  mkdirSync(dir, { recursive: true });
  return Object.entries(files).map(([file, content]) => {
    const path = join(dir, file);
    writeFileSync(path, redactor.file(content));
    return path;
  });
}
