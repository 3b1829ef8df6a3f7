// Status marks for report.html as inline SVG. The emoji the Markdown report uses (✅ ❌ ⚠️ ⏭️ 💥)
// and even ✓ ✗ are missing from the stock fonts of a bare CI image or headless Chromium, where
// they render as empty boxes; a path needs no font at all. Drawn in currentColor, so each mark
// takes its status colour from the CSS, and aria-hidden: the status word beside it is the text.

import type { Status } from '../model.js';
import { html, type SafeHtml } from './safe-html.js';

// 16×16 paths, stroked: a tick, a cross, a triangle with a bar, a skip arrow, a burst.
const PATHS: Record<Status, string> = {
  pass: 'M3 8.5l3.2 3.2L13 4.8',
  fail: 'M4 4l8 8M12 4l-8 8',
  warn: 'M8 2.2L14.5 13.5H1.5ZM8 6.5v3.2M8 11.4v.4',
  skip: 'M3 4l5 4-5 4ZM9 4l5 4-5 4Z',
  error: 'M8 1.8l1.6 3.4 3.6-1-1 3.6L15.6 8l-3.4 1.6 1 3.6-3.6-1L8 15.6l-1.6-3.4-3.6 1 1-3.6L.4 8l3.4-1.6-1-3.6 3.6 1Z',
};

/** The mark of a status, sized to the surrounding text. */
export function statusIcon(status: Status): SafeHtml {
  const d = PATHS[status] ?? PATHS.error;
  return html`<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="${d}" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
}

/** A met or crossed threshold, a passed or failed load run. */
export const okIcon = (ok: boolean): SafeHtml => statusIcon(ok ? 'pass' : 'fail');
