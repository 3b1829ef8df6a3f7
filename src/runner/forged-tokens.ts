// Bearer values shaped like the service's own token but never issued by it (issue 20). A random
// string or `not-a-token` only proves that nonsense is refused; a gate that checks a token's
// length, compares a prefix, or trusts a JWT's claims without its signature refuses those too and
// lets a forgery in. So the forgeries keep the real token's length, alphabet and structure and
// differ from it in one character (at the start, in the middle, at the end); a JWT also gets one
// with its claims intact but a signature that is not the service's, and one that says `alg: none`.

import { randomBytes } from 'node:crypto';
import type { Redactor } from '../http/redact.js';
import { encodeSegment, parseJwt } from '../http/jwt.js';

export interface ForgedToken {
  /** What was forged, for messages: never the value. */
  name: string;
  token: string;
}

// The narrowest known alphabet the token is written in decides what a changed character may be:
// a hex token stays hex, a base64url token stays base64url. In each, position XOR half the size
// flips the character's top bit, which carries data even in base64's last character (whose low
// bits may be padding a decoder ignores: changing only those would forge nothing).
const ALPHABETS = [
  '0123456789abcdef',
  '0123456789ABCDEF',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
];
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A function that changes one character to another of the same alphabet, or undefined for characters outside it (separators, padding). */
function changerFor(token: string): (c: string) => string | undefined {
  // Separators and padding stay as they are; the alphabet is that of the rest.
  const body = token.replace(/[.=]/g, '');
  const fitting = ALPHABETS.filter((a) => [...body].every((c) => a.includes(c)));
  const alphabet = fitting[0];
  // A token written only in letters and digits fits base64url and base64 alike: a changed
  // character must then fit both (no '-' or '_' into what may be standard base64), else the
  // next character is changed instead.
  const fitsAll = (c: string) => fitting.every((a) => a.includes(c));
  if (alphabet !== undefined)
    return (c) => {
      const to = alphabet.includes(c) ? alphabet[alphabet.indexOf(c) ^ (alphabet.length / 2)] : undefined;
      return to !== undefined && fitsAll(to) ? to : undefined;
    };
  return (c) => (ALNUM.includes(c) ? ALNUM[(ALNUM.indexOf(c) + ALNUM.length / 2) % ALNUM.length] : undefined);
}

/** The token with the first changeable character from `from` (searching in `step` direction) changed. */
function oneChanged(token: string, from: number, step: 1 | -1): string | undefined {
  const change = changerFor(token);
  for (let i = from; i >= 0 && i < token.length; i += step) {
    const to = change(token[i]!);
    if (to !== undefined) return `${token.slice(0, i)}${to}${token.slice(i + 1)}`;
  }
  return undefined;
}

/** JWT forgeries: the real header and claims under a signature of another key, and `alg: none` with none. */
function forgedJwts(token: string): ForgedToken[] {
  const jwt = parseJwt(token);
  if (jwt === undefined) return [];
  const [header, claims, signature] = jwt.segments;
  const otherSignature = randomBytes(Math.max(Buffer.from(signature, 'base64url').length, 32)).toString('base64url');
  return [
    { name: 'JWT with its claims and another signature', token: `${header}.${claims}.${otherSignature}` },
    { name: 'JWT with its claims and alg none', token: `${encodeSegment({ ...jwt.header, alg: 'none' })}.${claims}.` },
  ];
}

/** Forgeries of `token`, each different from it and from the others; fewer when it has little to change. */
export function forgedTokens(token: string): ForgedToken[] {
  const changed = [
    { name: 'token with its first character changed', token: oneChanged(token, 0, 1) },
    { name: 'token with a middle character changed', token: oneChanged(token, token.length >> 1, 1) },
    { name: 'token with its last character changed', token: oneChanged(token, token.length - 1, -1) },
  ].filter((f): f is ForgedToken => f.token !== undefined);
  const seen = new Set([token]);
  return [...changed, ...forgedJwts(token)].filter((f) => !seen.has(f.token) && seen.add(f.token));
}

/**
 * Every bearer the invalid-token checks send: nonsense, a random token the service never issued,
 * and the forgeries of the run's real one. A forgery is nearly the whole real token, so each is
 * made known to the redactor (and shown by its own fingerprint) before it is sent anywhere.
 */
export function invalidBearers(redactor: Redactor, real: string): ForgedToken[] {
  const forged = forgedTokens(real);
  for (const f of forged) redactor.addToken(f.token);
  return [
    { name: 'malformed token', token: 'not-a-token' },
    { name: 'unknown token', token: randomBytes(32).toString('base64url') },
    ...forged,
  ];
}
