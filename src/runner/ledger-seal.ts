// Sealing ledger tokens: AES-256-GCM under a key derived (HKDF-SHA256) from the client secret, so
// the file on disk holds no usable token; whoever can unseal it already has the secret that mints
// tokens. A wrong key or a tampered entry fails the GCM tag and the entry is simply not used.

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Credentials } from '../spec/credentials.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'ces-harness token ledger v2';

function keyFor(credentials: Credentials, baseUrl: string): Buffer {
  // The base URL and client id as salt: one secret used on two targets gives two keys.
  return Buffer.from(hkdfSync('sha256', credentials.clientSecret, `${baseUrl}\n${credentials.clientId}`, INFO, 32));
}

/** base64url(iv ‖ tag ‖ ciphertext) of the token. */
export function seal(token: string, credentials: Credentials, baseUrl: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(credentials, baseUrl), iv);
  const body = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The token, or undefined when the entry was sealed under other credentials or altered. */
export function unseal(sealed: string, credentials: Credentials, baseUrl: string): string | undefined {
  try {
    const raw = Buffer.from(sealed, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', keyFor(credentials, baseUrl), raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
