// The report folder, file by file. The CLI writes `renderers[name](report)` for every name, so a
// new format is one entry here and its file name one in model.ts's REPORT_FILE_NAMES (the type
// below refuses either without the other).

import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';
import type { Report, ReportFile } from './model.js';

export const renderers = {
  'report.json': renderJson,
  'report.md': renderMarkdown,
  'junit.xml': renderJunit,
  'report.html': renderHtml,
} as const satisfies Record<ReportFile, (report: Report) => string>;

export type { ReportFile } from './model.js';

export { renderHtml, renderJson, renderJunit, renderMarkdown };
