// What a check keeps of an exchange for the report: the request, the status and a short note,
// always through the run's redactor, so no secret or whole token reaches a report.

import type { Evidence } from '../report/model.js';
import type { Exchange } from './exchange.js';
import type { Redactor } from './redact.js';

/** Evidence for the report: the request, the status, and a redacted, shortened note. */
export function evidenceOf(
  redactor: Redactor,
  ex: Pick<Exchange, 'request' | 'status'> & Partial<Pick<Exchange, 'text' | 'rateLimitWaits'>>,
  note?: string,
): Evidence {
  const parts: string[] = [];
  if (note) parts.push(note);
  if (ex.rateLimitWaits) parts.push(`after waiting out ${ex.rateLimitWaits} × 429`);
  const item: Evidence = { request: ex.request, status: ex.status };
  if (parts.length) item.note = redactor.text(parts.join('; '));
  return item;
}
