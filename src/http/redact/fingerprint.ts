// What a token looks like in every output: a short, stable, non-reversible name.

import { createHash } from 'node:crypto';

/** A short, stable, non-reversible name for a token, as the reports show it. */
export function fingerprint(token: string): string {
  return `tk_${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;
}

/** What the redactor itself writes: never to be learned as a value again. */
export const isRedactionMark = (value: string): boolean => /^tk_[0-9a-f]{8}$/.test(value) || value === REDACTED;

export const REDACTED = '[redacted]';
