// report.md's load findings: the scenarios' own k6 figures as sentences (words.ts), and
// every figure no sentence says folded away under <details>, which GitHub renders.

import { formatFigure } from '../../common/format.js';
import { loadFindings } from './words.js';
import { mdCode, mdEscape, mdInline, mdTable } from '../../common/md-text.js';
import type { LoadResult } from '../../model.js';

export function findingsBlock(load: LoadResult): string | null {
  const all = loadFindings(load);
  const sentences = all.flatMap((s) => s.findings.map((f) => `- ${mdCode(f.scenario)}: ${mdInline(f.text)}`));
  const rest = all.flatMap((s) =>
    s.rest.map(([key, v]) => [mdCode(s.scenario), mdCode(key), mdEscape(formatFigure(v))]),
  );
  const blocks = [
    sentences.length > 0 ? `**Findings**\n\n${sentences.join('\n')}` : null,
    // A blank line after <summary> lets GitHub render the table inside as Markdown.
    rest.length > 0
      ? `<details><summary>Other k6 figures (${rest.length})</summary>\n\n${mdTable(['Scenario', 'k6 metric', 'Value'], ['l', 'l', 'r'], rest)}\n\n</details>`
      : null,
  ].filter((b) => b !== null);
  return blocks.length === 0 ? null : blocks.join('\n\n');
}
