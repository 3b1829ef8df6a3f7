// JSON Web Tokens (RFC 7519, JWS compact form of RFC 7515) as far as the harness and the emulator
// need them: the spec says nothing about a token's format (§2: a string), and many services hand
// out JWTs. Three base64url segments, a JSON header and JSON claims; signatures are not verified
// here (the harness has no key: it only forges tokens that must be refused).

import { isJsonObject } from '../spec/json-object.js';

export interface Jwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  /** The three base64url segments as they stand in the token: header, claims, signature. */
  segments: readonly [string, string, string];
}

const SEGMENT = /^[A-Za-z0-9_-]*$/;

export const encodeSegment = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

function decodeSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The token's parts when it is a JWS-compact JWT with JSON header and claims, else undefined. */
export function parseJwt(token: string): Jwt | undefined {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((s) => SEGMENT.test(s)) || segments[0] === '' || segments[1] === '')
    return undefined;
  const header = decodeSegment(segments[0]!);
  const claims = decodeSegment(segments[1]!);
  if (header === undefined || claims === undefined || typeof header['alg'] !== 'string') return undefined;
  return { header, claims, segments: [segments[0]!, segments[1]!, segments[2]!] };
}

/** "JWT (HS256)" when the token is a JWT, else undefined: its algorithm only, never a claim or the signature. */
export function jwtFormat(token: string): string | undefined {
  const alg = parseJwt(token)?.header['alg'];
  if (typeof alg !== 'string') return undefined;
  // The header is the service's text: only a short algorithm name is worth repeating.
  return `JWT (${/^[A-Za-z0-9+-]{1,16}$/.test(alg) ? alg : 'unnamed algorithm'})`;
}
