// What a token looks like in every output: a short, stable, non-reversible name.

import { createHash } from 'node:crypto';
import { fingerprintOfSha256, TOKEN_FINGERPRINT } from '../../spec/token-fingerprint.js';

/** A short, stable, non-reversible name for a token, as the reports show it. */
export function fingerprint(token: string): string {
  return fingerprintOfSha256(createHash('sha256').update(token).digest('hex'));
}

/** What the redactor itself writes: never to be learned as a value again. */
export const isRedactionMark = (value: string): boolean => TOKEN_FINGERPRINT.test(value) || value === REDACTED;

export const REDACTED = '[redacted]';
