// Every form in which a known secret or token can reach an output. A reflected request body
// carries it JSON-escaped (a `"` becomes `\"`), a log of that body escapes it twice, a URL or a
// form body percent-encodes it, Basic auth base64-encodes `client_id:secret`, and the HTML and
// XML renderers turn `&` and `"` into entities. Matching only the raw value misses all of these.

const HTML_ENTITIES: ReadonlyArray<Record<string, string>> = [
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#x27;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' },
];

const jsonEscaped = (v: string): string => JSON.stringify(v).slice(1, -1);
/** JSON.stringify leaves non-ASCII as it is; some encoders write \uXXXX instead. */
const jsonAsciiEscaped = (v: string): string => jsonEscaped(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const formEncoded = (v: string): string => encodeURIComponent(v).replace(/%20/g, '+');
const base64 = (v: string): string => Buffer.from(v, 'utf8').toString('base64');
const base64url = (v: string): string => Buffer.from(v, 'utf8').toString('base64url');

/** The forms of one value, raw first; duplicates and empty strings removed. */
export function encodingsOf(value: string): string[] {
  const once = jsonEscaped(value);
  const forms = [
    value,
    once,
    jsonAsciiEscaped(value),
    jsonEscaped(once),
    encodeURIComponent(value),
    formEncoded(value),
    // Lower-case percent escapes: some clients and proxies write them that way.
    encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    base64(value),
    base64(value).replace(/=+$/, ''),
    base64url(value),
    ...HTML_ENTITIES.map((table) => value.replace(/[&<>"']/g, (c) => table[c] ?? c)),
    ...HTML_ENTITIES.map((table) => once.replace(/[&<>"']/g, (c) => table[c] ?? c)),
  ];
  return [...new Set(forms)].filter((f) => f !== '');
}

/** The forms of `client_id:secret` as HTTP Basic auth carries it (RFC 7617). */
export function basicAuthEncodingsOf(clientId: string, secret: string): string[] {
  const pair = `${clientId}:${secret}`;
  return [...new Set([base64(pair), base64(pair).replace(/=+$/, ''), base64url(pair)])];
}
