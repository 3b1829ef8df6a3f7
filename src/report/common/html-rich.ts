// The one way report prose becomes HTML: checks and probes write `backticked` quotes in their
// messages and notes, and every section shows them the same way.

import { splitCode } from './format.js';
import { SafeHtml, html, joinHtml } from './safe-html.js';

/** Free text with the author's `backticked` quotes as <code>; newlines survive through CSS pre-wrap. */
export function rich(text: string): SafeHtml {
  return joinHtml(splitCode(text).map((s) => (s.code ? html`<code>${s.text}</code>` : html`${s.text}`)));
}
