// report.md's production section: every request the run sent to production, one row each.

import { mdTable } from '../../common/md-text.js';
import type { ProductionAudit } from '../../model.js';
import { PRODUCTION_COLUMNS, productionRow, productionSummary } from './words.js';

export function productionSectionMd(p: ProductionAudit | undefined): string | null {
  if (!p) return null;
  const table = p.requests.length
    ? `\n\n${mdTable(PRODUCTION_COLUMNS, ['l', 'l', 'l', 'r', 'r', 'l'], p.requests.map(productionRow))}`
    : '';
  return `### Requests sent to production\n\n${productionSummary(p)}${table}`;
}
