// report.html's Checks table on a narrow screen (a phone): each check becomes one stacked block,
// status with spec, level and time on its first line, then the id and title, then the result at the
// block's full width. Six columns in 375 px scrolled sideways and made every row a screen tall.
// CSS only: the markup stays the desktop table, so a screen reader still gets one.

import type { Status } from '../model.js';

/** Below this width the six columns no longer fit beside each other. */
const NARROW_PX = 720;

const STATUS_COLOUR: Record<Status, string> = {
  pass: '--pass',
  fail: '--fail',
  warn: '--warn',
  skip: '--skip',
  error: '--error',
};

// The status stripe moves from the first cell (now one line) to the whole block.
const stripes = Object.entries(STATUS_COLOUR)
  .map(([status, colour]) => `table.checks tr.row-${status}{border-left:4px solid var(${colour})}`)
  .join('\n');

// Cells in source order: 1 status, 2 check (th), 3 spec, 4 level, 5 result, 6 time.
export const NARROW_CHECKS_CSS = `
@media (max-width:${NARROW_PX}px){
table.checks,table.checks tbody,table.checks caption{display:block}
table.checks caption{text-align:left}
/* The header stays for screen readers, out of the way of the eye. */
table.checks thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
table.checks tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 12px;padding:8px 8px 8px 12px;border-bottom:1px solid var(--border)}
table.checks tr>*{display:block;border:0;padding:0;min-width:0}
table.checks tr>td:first-child{border-left:0}
table.checks tr>td:nth-child(3),table.checks tr>td:nth-child(4),table.checks tr>td:nth-child(6){color:var(--muted);font-size:12px}
table.checks tr>th,table.checks tr>td:nth-child(5){order:1;flex:1 0 100%}
table.checks tr>td:nth-child(5){margin-top:4px}
${stripes}
}
`;
