// report.md's Rate limit section: the recommendation first (what to configure), then the facts it
// rests on as a table, the probe's notes, and the fleet part when `--fleet N` sized one.

import { mdCode, mdEscape, mdInline, mdTable } from '../../common/md-text.js';
import type { RateLimitResult } from '../../model.js';
import { fleetMarkdown } from '../fleet/md.js';
import { proofText, rateLimitFacts, recommendationText } from './words.js';

export function rateLimitSectionMd(r: RateLimitResult): string {
  const facts = mdTable(
    ['Finding', 'Value'],
    ['l', 'l'],
    rateLimitFacts(r).map(([label, value]) => [
      mdEscape(label),
      label === 'Endpoint' ? mdCode(value) : mdEscape(value),
    ]),
  );
  const proof = proofText(r);
  const blocks = [
    `**Recommendation:** ${mdEscape(recommendationText(r))}.`,
    proof === null ? null : `**Proof run:** ${mdEscape(proof)}.`,
    facts,
    r.notes && r.notes.length > 0 ? r.notes.map((n) => `- ${mdInline(n)}`).join('\n') : null,
    fleetMarkdown(r.fleet),
  ];
  return `### Rate limit\n\n${blocks.filter((b) => b !== null).join('\n\n')}`;
}
