// Report strings inside GitHub-flavoured Markdown. A message quoting a proxy's HTML error page or a
// body full of `*` and `|` must show as the text it is, not turn into markup or break the table.

import { splitCode, type TextSegment } from './format.js';

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * What GitHub turns into a link by itself (GFM's autolinks): a URL with a scheme, `www.…`, an
 * e-mail address. Escaping does not stop it: `https:\/\/` still links on GitHub.
 */
// Trailing punctuation stays outside the span, as it stays outside GitHub's link: it ends the sentence.
const LINKABLE = /(?:[a-z][a-z0-9+.-]*:\/\/|\bwww\.)\S*?(?=[.,;:!?'")\]]*(?:\s|$))|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/gi;

/**
 * Plain text: markdown punctuation is backslash-escaped, HTML-significant characters become
 * entities, and anything a renderer would link is put in a code span, where nothing is linked. The
 * text is often the service's (an error_description, a certificate's name): in a CI job summary a
 * link it supplies would be one click from the reader, under the harness's name.
 */
export const mdEscape = (text: string): string => render(linkable(text));

/** The text, its linkable runs as code. */
function linkable(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let from = 0;
  for (const m of text.matchAll(LINKABLE)) {
    segments.push({ code: false, text: text.slice(from, m.index) }, { code: true, text: m[0] });
    from = m.index + m[0].length;
  }
  segments.push({ code: false, text: text.slice(from) });
  return segments.filter((s) => s.text !== '');
}

/**
 * Code spans side by side would touch (`a``b`): a run of two backticks closes neither, and the
 * rest of the line would change meaning. They become one span.
 */
function render(segments: readonly TextSegment[]): string {
  const merged: TextSegment[] = [];
  for (const s of segments) {
    const last = merged.at(-1);
    if (last?.code && s.code) merged[merged.length - 1] = { code: true, text: last.text + s.text };
    else merged.push(s);
  }
  return merged.map((s) => (s.code ? mdCode(s.text) : escapeText(s.text))).join('');
}

function escapeText(text: string): string {
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
  return render(splitCode(text).flatMap((s) => (s.code ? [s] : linkable(s.text))));
}

/** GFM splits table rows on `|` before anything else, so it needs escaping even inside code spans. */
export function mdCell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|');
}

export function mdTable(
  header: readonly string[],
  align: readonly ('l' | 'r' | 'c')[],
  rows: readonly (readonly string[])[],
): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(mdCell).join(' | ')} |`;
  const rule = `|${align.map((a) => (a === 'r' ? '--:' : a === 'c' ? ':-:' : '---')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
