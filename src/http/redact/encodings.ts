// Every form in which a known secret or token can reach an output, each as a list of units: one
// unit per character of the value (or per character of base64 text), so a fragment of a form is a
// run of whole units and never ends inside an escape. A reflected request body carries the value
// JSON-escaped (once, or twice in a log of it), a URL percent-encodes it (partly or fully, either
// case), Basic auth and many APIs base64 it (and inside a longer base64 string the value starts at
// any offset mod 3), a debug dump hex-encodes it, the HTML and XML renderers turn it into entities
// or `&#…;` references, a JavaScript dump into `\u` escapes, and a naive "obfuscation" reverses it.
// Matching only the raw value misses all of these.

export interface Form {
  /** What it is, for tests and debugging. */
  name: string;
  units: string[];
  /** The shortest run of units that counts as a leak of (part of) the value. */
  fragmentUnits: number;
}

/**
 * Characters of a value that, shown in a row, count as a leak of it. A cut or a service's own
 * truncation can show a prefix of a value; past 12 characters a fragment of a random secret or
 * token gives away 72+ bits (base64) and is far from anything a report says by chance, while
 * shorter runs start to collide with ordinary words and identifiers. A value of 12 characters or
 * fewer is matched whole.
 */
export const FRAGMENT_CHARS = 12;
/** The same span in base64 text: 12 bytes are 16 characters. */
const FRAGMENT_BASE64 = 16;
/** A base64 core shorter than this (a value of under ~8 bytes at an odd offset) is not hunted. */
const MIN_BASE64_CORE = 10;

const HTML_ENTITIES: ReadonlyArray<Record<string, string>> = [
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#x27;' },
  { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' },
];

const hex2 = (n: number): string => n.toString(16).padStart(2, '0');
const utf8 = (c: string): number[] => [...Buffer.from(c, 'utf8')];
const jsonEscaped = (c: string): string => JSON.stringify(c).slice(1, -1);
const asciiEscaped = (c: string): string =>
  jsonEscaped(c).replace(/[\u007f-\uffff]/g, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);
const uEscaped = (c: string): string =>
  Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
const upper = (f: (c: string) => string) => (c: string) => f(c).toUpperCase();
const lowerEscapes = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

/** Per-character encoders: each character of the value becomes one unit. */
const PER_CHARACTER: ReadonlyArray<[string, (c: string) => string]> = [
  ['raw', (c) => c],
  ['JSON-escaped', jsonEscaped],
  ['JSON-escaped, ASCII only', asciiEscaped],
  ['JSON-escaped twice', (c) => jsonEscaped(jsonEscaped(c))],
  ['percent-encoded', encodeURIComponent],
  ['percent-encoded, lower case', (c) => lowerEscapes(encodeURIComponent(c))],
  ['form-encoded', (c) => encodeURIComponent(c).replace(/%20/g, '+')],
  [
    'fully percent-encoded',
    (c) =>
      utf8(c)
        .map((b) => `%${hex2(b).toUpperCase()}`)
        .join(''),
  ],
  [
    'fully percent-encoded, lower case',
    (c) =>
      utf8(c)
        .map((b) => `%${hex2(b)}`)
        .join(''),
  ],
  ['hex', (c) => utf8(c).map(hex2).join('')],
  ['hex, upper case', upper((c) => utf8(c).map(hex2).join(''))],
  ['\\u escapes', uEscaped],
  [
    '\\u escapes, upper case',
    (c) => uEscaped(c).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`),
  ],
  ['&# decimal references', (c) => `&#${c.codePointAt(0)};`],
  ['&#x references', (c) => `&#x${c.codePointAt(0)!.toString(16)};`],
  ['&#x references, upper case', (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`],
  ...HTML_ENTITIES.map((table, i): [string, (c: string) => string] => [
    `HTML-escaped (${i + 1})`,
    (c) => table[c] ?? c,
  ]),
  ...HTML_ENTITIES.map((table, i): [string, (c: string) => string] => [
    `JSON- then HTML-escaped (${i + 1})`,
    (c) => jsonEscaped(c).replace(/[&<>"']/g, (x) => table[x] ?? x),
  ]),
];

/**
 * The base64 characters that depend on the value alone, when it starts `offset` bytes (0, 1 or 2)
 * into the encoded data: the characters shared with the bytes before or after it are dropped.
 */
function base64Core(bytes: Buffer, offset: number, url: boolean): string {
  const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
  const text = padded.toString('base64').replace(/=+$/, '');
  // A character carries 6 bits: it is the value's own when all its bits fall inside the value.
  const first = Math.ceil((offset * 8) / 6);
  const last = Math.floor((padded.length * 8) / 6);
  const core = text.slice(first, last);
  return url ? core.replace(/\+/g, '-').replace(/\//g, '_') : core;
}

/**
 * Each encoder's unit per character, kept: every token and secret of a run is mostly the same 64
 * characters, and encoding each anew cost ~0.6 ms a token (~30 encoders × 43 characters).
 */
const UNITS = PER_CHARACTER.map(() => new Map<string, string>());

/** The forms of one value; forms that come out the same are kept once. */
export function formsOf(value: string): Form[] {
  const chars = Array.from(value);
  const forms: Form[] = PER_CHARACTER.map(([name, encode], i) => {
    const known = UNITS[i]!;
    return {
      name,
      units: chars.map((c) => {
        let unit = known.get(c);
        if (unit === undefined) known.set(c, (unit = encode(c)));
        return unit;
      }),
      fragmentUnits: FRAGMENT_CHARS,
    };
  });
  forms.push({ name: 'reversed', units: [...chars].reverse(), fragmentUnits: FRAGMENT_CHARS });
  const bytes = Buffer.from(value, 'utf8');
  // Whole, with its padding, as a value encoded on its own is written.
  forms.push({ name: 'base64', units: [...bytes.toString('base64')], fragmentUnits: FRAGMENT_BASE64 });
  forms.push({ name: 'base64url', units: [...bytes.toString('base64url')], fragmentUnits: FRAGMENT_BASE64 });
  for (const offset of [0, 1, 2]) {
    for (const url of [false, true]) {
      const core = base64Core(bytes, offset, url);
      // A few base64 characters alone are in every base64 string: a short core is no evidence.
      if (core.length >= MIN_BASE64_CORE)
        forms.push({
          name: `base64${url ? 'url' : ''} at offset ${offset}`,
          units: [...core],
          fragmentUnits: FRAGMENT_BASE64,
        });
    }
  }
  const seen = new Set<string>();
  return forms.filter((f) => {
    const key = f.units.join('\u0000');
    if (f.units.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `client_id:secret` as HTTP Basic auth carries it (RFC 7617), matched whole: its pieces are
 * mostly the client_id, which is no secret (a piece of `ces-production-…` is the word
 * "production"). A long secret inside it is caught anyway by its own base64 forms at any offset.
 */
export function basicAuthFormsOf(clientId: string, secret: string): Form[] {
  const pair = Buffer.from(`${clientId}:${secret}`, 'utf8');
  const texts = [pair.toString('base64'), pair.toString('base64').replace(/=+$/, ''), pair.toString('base64url')];
  return [...new Set(texts)].map((text) => ({ name: 'Basic auth', units: [...text], fragmentUnits: text.length }));
}
