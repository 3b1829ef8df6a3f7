// What in an answer could be a token the run never saw, whatever it is called: a refusal hands one
// out under `token`, `accessToken`, `session` or a header of its own, as it is or base64-encoded.
// Only trying one tells whether it is a token (expect.ts), so this only lists the candidates.

import type { Exchange } from './exchange.js';

/** Shorter strings, or strings with spaces, are words and URLs' parts, not bearer tokens. */
const MIN_CANDIDATE_LENGTH = 16;
const TOKEN_LIKE = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Headers every answer has, which never hand out a token. */
const PLAIN_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'server',
  'connection',
  'keep-alive',
  'vary',
  'cache-control',
  'retry-after',
  'www-authenticate',
  'etag',
  'x-request-id',
]);

const URL_BEFORE_QUERY = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>?#]*/gi;

/** Long enough and of a token's characters only: what could be a bearer token. */
export const looksLikeToken = (s: string): boolean => s.length >= MIN_CANDIDATE_LENGTH && TOKEN_LIKE.test(s);
const isCandidate = looksLikeToken;
/** A piece this long of a token's characters may be half of one split over two fields. */
const MIN_PIECE_LENGTH = 8;

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** A base64 or base64url string decoded, when it decodes to token-like text. */
export function decoded(s: string): string | undefined {
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(s)) return undefined;
  const text = Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  return isCandidate(text) ? text : undefined;
}

/** Candidate tokens in an answer, most likely first: its JSON strings, header values and words, raw and base64-decoded. */
export function tokenCandidatesIn(ex: Pick<Exchange, 'json' | 'text' | 'headers'>): string[] {
  // Words of a text: runs of token characters, `name=value` split at the `=` (base64 padding
  // kept); a URL's scheme, host and path are no token, its query's values may be.
  const pieces = (s: string) =>
    s
      .replace(URL_BEFORE_QUERY, ' ')
      .split(/[^A-Za-z0-9\-._~+/=]+/)
      .flatMap((w) => w.split(/=+(?!=*$)/));
  const body =
    ex.json === undefined ? pieces(ex.text) : stringsIn(ex.json).flatMap((s) => (isCandidate(s) ? [s] : pieces(s)));
  const headers = Object.entries(ex.headers)
    .filter(([name]) => !PLAIN_HEADERS.has(name.toLowerCase()))
    .flatMap(([, value]) => pieces(value.replace(/^\s*(Bearer|Basic|Token)\s+/i, '')));
  const raw = [...body, ...headers].filter(isCandidate);
  // A token split over two fields (or a field and a header) is tried joined, after what stands whole.
  // A piece has a digit or both cases: a word of the answer (`unauthorized`) is no half of a token.
  const parts = [...body, ...headers].filter(
    (s) => s.length >= MIN_PIECE_LENGTH && TOKEN_LIKE.test(s) && (/\d/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s))),
  );
  const joined = parts.slice(1).map((s, i) => parts[i]! + s);
  return [...new Set([...raw, ...joined].flatMap((s) => [s, decoded(s)]).filter((s): s is string => s !== undefined))];
}
