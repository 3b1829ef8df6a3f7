// report.md's "Since the last run": placed right under the title, so a scheduled job's summary
// leads with what changed.

import { mdInline, mdTable } from '../../common/md-text.js';
import type { Report } from '../../model.js';
import { ACTION_LABEL, KIND_LABEL, SINCE_TITLE, notComparedLines, sinceHeadline } from './words.js';

export function sinceLastRunMd(report: Report): string | null {
  const since = report.since_last_run;
  if (!since) return null;
  const blocks = [`### ${SINCE_TITLE}`, mdInline(sinceHeadline(since))];
  if (since.changes.length) {
    blocks.push(
      mdTable(
        ['', 'Kind', 'What changed'],
        ['l', 'l', 'l'],
        since.changes.map((c) => [ACTION_LABEL[c.action], KIND_LABEL[c.kind], mdInline(c.text)]),
      ),
    );
  }
  const unjudged = notComparedLines(since);
  if (unjudged.length) blocks.push(unjudged.map((l) => `- ${mdInline(l)}`).join('\n'));
  for (const w of since.warnings ?? []) blocks.push(`> ⚠️ ${mdInline(w)}`);
  if (since.history !== 'none') blocks.push(`<sub>${mdInline(since.method)}</sub>`);
  return blocks.join('\n\n');
}
