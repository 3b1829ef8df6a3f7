// report.html's lead: right under the verdict, what failed, why and what to do, one line each,
// each failed check linked to its row in the Checks table.

import { okIcon } from '../../common/html-icons.js';
import { rich } from '../../common/html-rich.js';
import { leadItems, type LeadItem } from './words.js';
import type { Report } from '../../model.js';
import { html, type SafeHtml } from '../../common/safe-html.js';

/** The id of a check's row, so the lead can link to it. */
export const checkAnchor = (id: string): string => `check-${id.replace(/[^A-Za-z0-9_.-]/g, '-')}`;

function item(i: LeadItem): SafeHtml {
  const what =
    i.checkId === undefined
      ? html`<strong>${i.what}</strong>`
      : html`<a href="#${checkAnchor(i.checkId)}"><strong>${i.what}</strong></a>`;
  return html`<li><span class="st-fail">${okIcon(false)}</span> ${what}: <span class="why">${rich(i.why)}</span>. <span class="todo"><strong>Do:</strong> ${i.todo}.</span></li>`;
}

export function leadSection(report: Report): SafeHtml | null {
  const items = leadItems(report);
  if (items.length === 0) return null;
  return html`<section id="lead" class="callout lead" aria-labelledby="lead-h"><h2 id="lead-h">What failed</h2><ul class="lead-items">${items.map(item)}</ul></section>`;
}
