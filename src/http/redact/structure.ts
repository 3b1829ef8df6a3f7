// Credentials found by where they stand, not by what they are: whatever follows a
// credential-carrying JSON key, form field or header, a Bearer or Basic scheme, or the password
// of a URL. For text from outside only (Redactor.foreign): it catches what no one told the
// redactor about, a token k6 fetched and logged, a header a service sets. Malformed or cut-off
// JSON counts too, since a body capped at 64 KiB or quoted in an error is rarely whole. What it
// finds is hidden where it stands, never learned, and judges nothing.

import { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS, CREDENTIAL_NAMES } from '../credential-fields.js';
import { isRedactionMark } from './fingerprint.js';

/** A secret is hidden as [redacted]; a token gets a fingerprint, so reports can tell tokens apart. */
export type CredentialKind = 'secret' | 'token';

/** Called for each credential found: returns what to write in its place. */
export type Mark = (value: string, kind: CredentialKind) => string;

const SECRET_NAMES = /secret|password|api_?key/i;
const kindOfName = (name: string): CredentialKind => (SECRET_NAMES.test(name) ? 'secret' : 'token');

export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMES = CREDENTIAL_NAMES.map(escapeRegExp).join('|');
const FIELD_NAMES = [...CREDENTIAL_FIELDS].map(escapeRegExp).join('|');
const HEADER_NAMES = [...CREDENTIAL_HEADERS].map(escapeRegExp).join('|');

// `"access_token" : "…"`, the closing quote optional (a body cut off mid-value).
const JSON_VALUE = new RegExp(`"(${NAMES})"(\\s*:\\s*)"((?:[^"\\\\]|\\\\.)*)("?)`, 'gi');
// The same inside a JSON string, once or twice escaped: `\"token\":\"…\"`.
const ESCAPED_JSON_VALUE = new RegExp(`(\\\\+)"(${NAMES})\\1"(\\s*:\\s*)\\1"((?:(?!\\1")[^\\n])*)`, 'gi');
// `client_secret=…` in a form body, a query string or a logfmt line. A backslash ends the value: in
// JSON text it starts the escape of the closing quote, which must stay.
const FORM_VALUE = new RegExp(`(?<![A-Za-z0-9_-])(${FIELD_NAMES})=([^&\\s"',;<>\\\\]+)`, 'gi');
// `Set-Cookie: session=…` in a header dump or a log.
const HEADER_LINE = new RegExp(`(^|[\\r\\n{,]\\s*)(${HEADER_NAMES})(\\s*:\\s*)([^\\r\\n]+)`, 'gim');
// Credentials of an auth scheme, long enough to be one (an auth-param such as realm= is not).
const SCHEME_VALUE = /\b(Bearer|Basic)(\s+)([A-Za-z0-9\-._~+/]{12,}=*)(?![A-Za-z0-9\-._~+/=])/gi;
// `https://user:password@host`: the password, in any scheme.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"]*:)([^\s/?#@'"]+)@/gi;

function decodeJsonString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function decodeUri(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** The value a credential header carries: the token of `Bearer x`, the value of `name=x; Path=/`. */
function headerValue(name: string, value: string, mark: Mark): string {
  if (/^\s*(Bearer|Basic)\s/i.test(value)) return schemes(value, mark);
  if (/cookie/i.test(name)) {
    // Cookie: every pair is a credential; Set-Cookie: the first pair, then attributes (Path=/).
    const pair = new RegExp(/(^|;\s*)([^=;\s]+=)([^;]*)/.source, /^set-/i.test(name) ? '' : 'g');
    return value.replace(pair, (all, pre: string, key: string, v: string) =>
      v.trim() === '' ? all : `${pre}${key}${markValue(v.trim(), 'token', mark)}`,
    );
  }
  return markValue(value.trim(), kindOfName(name), mark);
}

function markValue(value: string, kind: CredentialKind, mark: Mark): string {
  return value === '' || isRedactionMark(value) ? value : mark(value, kind);
}

function schemes(text: string, mark: Mark): string {
  // Basic carries `client_id:secret`: a secret; Bearer a token.
  return text.replace(
    SCHEME_VALUE,
    (_all, scheme: string, space: string, value: string) =>
      `${scheme}${space}${markValue(value, /^basic$/i.test(scheme) ? 'secret' : 'token', mark)}`,
  );
}

/** The text with every credential found by structure replaced by what `mark` returns. */
export function redactStructure(text: string, mark: Mark): string {
  let out = text.replace(
    URL_PASSWORD,
    (_all, head: string, password: string) => `${head}${markValue(decodeUri(password), 'secret', mark)}@`,
  );
  out = out.replace(
    HEADER_LINE,
    (_all, pre: string, name: string, sep: string, value: string) =>
      `${pre}${name}${sep}${headerValue(name, value, mark)}`,
  );
  out = out.replace(JSON_VALUE, (all, name: string, sep: string, raw: string, close: string) => {
    if (raw === '') return all;
    const value = decodeJsonString(raw);
    const shown = CREDENTIAL_HEADERS.has(name.toLowerCase())
      ? headerValue(name, value, mark)
      : markValue(value, kindOfName(name), mark);
    return `"${name}"${sep}"${shown === value ? raw : shown}${close}`;
  });
  out = out.replace(ESCAPED_JSON_VALUE, (all, slashes: string, name: string, sep: string, raw: string) => {
    if (raw === '') return all;
    // One level of escaping is one JSON decoding; a value that does not decode is taken as it is.
    let value = raw;
    for (let level = 1; level < slashes.length + 1; level *= 2) value = decodeJsonString(value);
    return `${slashes}"${name}${slashes}"${sep}${slashes}"${markValue(value, kindOfName(name), mark)}`;
  });
  out = out.replace(
    FORM_VALUE,
    (_all, name: string, raw: string) => `${name}=${markValue(decodeUri(raw), kindOfName(name), mark)}`,
  );
  return schemes(out, mark);
}
