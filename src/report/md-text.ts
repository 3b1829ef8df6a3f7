// Report strings inside GitHub-flavoured Markdown. A message quoting a proxy's HTML error page or a
// body full of `*` and `|` must show as the text it is, not turn into markup or break the table.

import { splitCode } from './format.js';

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Plain text: markdown punctuation is backslash-escaped, HTML-significant characters become entities. */
export function mdEscape(text: string): string {
  return text
    .replace(/[\\`*_[\]~#!]/g, (c) => `\\${c}`)
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c] ?? c)
    .replace(/\r?\n/g, '<br>');
}

/** A code span whose fence is longer than any backtick run inside, per CommonMark. */
export function mdCode(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ');
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  // CommonMark strips one space on each side, so padding keeps a leading/trailing backtick apart from the fence.
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Free text where the check author's `backticked` quotes become code spans and the rest is escaped. */
export function mdInline(text: string): string {
  return splitCode(text)
    .map((s) => (s.code ? mdCode(s.text) : mdEscape(s.text)))
    .join('');
}

/** GFM splits table rows on `|` before anything else, so it needs escaping even inside code spans. */
export function mdCell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|');
}

export function mdTable(header: readonly string[], align: readonly ('l' | 'r' | 'c')[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(mdCell).join(' | ')} |`;
  const rule = `|${align.map((a) => (a === 'r' ? '--:' : a === 'c' ? ':-:' : '---')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
