// The report folder, file by file. The CLI writes `renderers[name](report)` for every name, so a
// new format is one entry here and the file name type follows from the map.

import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { renderMarkdown } from './markdown.js';

export const renderers = {
  'report.json': renderJson,
  'report.md': renderMarkdown,
  'junit.xml': renderJunit,
  'report.html': renderHtml,
} as const;

export type ReportFile = keyof typeof renderers;

export { renderHtml, renderJson, renderJunit, renderMarkdown };
