// The words both report.md and report.html use for the production audit trail: its one-line
// summary and the cells of each request's row, so the two formats never disagree.

import type { ProductionAudit } from '../../model.js';

export const PRODUCTION_COLUMNS = ['Sent at', 'Environment', 'Request', 'Status', 'Time', 'Auth'] as const;

export function productionSummary(p: ProductionAudit): string {
  const k6 = p.k6_requests ? `, and k6 sent ${p.k6_requests} (load run with --allow-production-load)` : '';
  const budget = p.budget_reached
    ? `; the budget (production.max_requests ${p.max_requests}) was reached, so what remained was not tested`
    : ` of a budget of ${p.max_requests} (production.max_requests)`;
  return `This run sent ${p.sent} request${p.sent === 1 ? '' : 's'} to production${budget}${k6}. Auth says only what the Authorization header held: a valid token, an expired one, a forged one, or none.`;
}

export function productionRow(
  r: ProductionAudit['requests'][number],
): [string, string, string, string, string, string] {
  return [
    r.at,
    r.environment,
    `${r.plain_text ? 'plain-text ' : ''}${r.method} ${r.path}`,
    r.status === null ? 'no answer' : String(r.status),
    `${r.duration_ms} ms`,
    r.auth,
  ];
}
