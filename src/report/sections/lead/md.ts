// report.md's lead: right under the verdict, what failed, why and what to do, one line each.

import { leadItems } from './words.js';
import { mdEscape, mdInline } from '../../common/md-text.js';
import type { Report } from '../../model.js';

export function leadSection(report: Report): string | null {
  const items = leadItems(report);
  if (items.length === 0) return null;
  const lines = items.map((i) => `- ❌ **${mdEscape(i.what)}**: ${mdInline(i.why)}. **Do:** ${mdEscape(i.todo)}.`);
  return `### What failed\n\n${lines.join('\n')}`;
}
