// report.md's fleet part of the Rate limit section (`--fleet N`): the recommendation, how it was
// found, the reasons, and every candidate at every simulated fleet size.

import {
  FLEET_ALIGN,
  FLEET_HEADERS,
  fleetHeading,
  fleetBasisText,
  fleetMethodText,
  fleetProofText,
  fleetRecommendationText,
  fleetRowCells,
} from './words.js';
import { mdEscape, mdInline, mdTable } from '../../common/md-text.js';
import type { FleetResult } from '../../model.js';

export function fleetMarkdown(f: FleetResult | null | undefined): string | null {
  if (f === undefined) return null;
  if (f === null) return `### Fleet\n\nNot sized: no proven single-client rate to share out.`;
  const why = f.recommendation?.why ?? [];
  return [
    `### ${fleetHeading(f)}`,
    `**Fleet recommendation:** ${mdEscape(fleetRecommendationText(f))} (${mdEscape(fleetBasisText(f))}).`,
    mdEscape(fleetMethodText(f)),
    fleetProofText(f) === null ? null : `**Fleet proof run:** ${mdEscape(fleetProofText(f)!)}.`,
    why.length > 0 ? why.map((w) => `- ${mdInline(w)}`).join('\n') : null,
    mdTable(
      FLEET_HEADERS,
      FLEET_ALIGN,
      f.rows.map((r) => fleetRowCells(r).map(mdEscape)),
    ),
  ]
    .filter((b) => b !== null)
    .join('\n\n');
}
