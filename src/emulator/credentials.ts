// Demo credentials, generated per start and per environment (§1: never shared), and the
// comparison the token endpoint uses.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Credentials } from '../spec/credentials.js';

export function generateCredentials(environment: string): Credentials {
  return {
    // Readable prefix so a user can tell the environments apart in logs; random so runs differ.
    clientId: `ces-${environment}-${randomBytes(6).toString('hex')}`,
    clientSecret: randomBytes(24).toString('base64url'),
  };
}

/** Constant-time for equal lengths, as a real service would compare secrets. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
