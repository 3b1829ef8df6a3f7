// A DER encoder (ITU-T X.690) just large enough for X.509 certificates: each function returns one
// complete element (tag, length, content) as bytes, and elements nest by passing them as content.
// Only what x509.ts needs is here; DER's rule of one encoding per value is kept throughout
// (minimal lengths, minimal integers, trailing zero bits dropped from named bit lists), because
// strict verifiers (Go's, under k6) reject anything else.

// Tag byte = class (2 bits) | constructed (1 bit) | number (5 bits). Universal class is 0x00,
// context-specific ("[n]" in RFC 5280's ASN.1) is 0x80, and constructed adds 0x20.
const BOOLEAN = 0x01;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const OBJECT_IDENTIFIER = 0x06;
const UTF8_STRING = 0x0c;
const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;
const SEQUENCE = 0x30;
const SET = 0x31;
const CONTEXT = 0x80;
const CONSTRUCTED = 0x20;

/** Tag, length, content. The length is definite: one byte below 128, else 0x80|n then n bytes. */
export function tlv(tag: number, ...content: Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  if (n < 0x80) return Buffer.concat([Buffer.from([tag, n]), body]);
  const lengthBytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) lengthBytes.unshift(v % 256);
  return Buffer.concat([Buffer.from([tag, 0x80 | lengthBytes.length, ...lengthBytes]), body]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(SEQUENCE, ...items);

/** DER sorts the members of a SET OF; every set built here has exactly one member. */
export const set = (item: Uint8Array): Buffer => tlv(SET, item);

export const boolean = (value: boolean): Buffer => tlv(BOOLEAN, Buffer.from([value ? 0xff : 0x00]));

/**
 * A non-negative INTEGER from its unsigned big-endian bytes (or a small number). Two's complement
 * in the fewest bytes: leading zero bytes dropped, and one put back when the top bit is set, which
 * would otherwise make the number negative.
 */
export function integer(value: number | Uint8Array): Buffer {
  let bytes = typeof value === 'number' ? unsignedBytes(value) : Buffer.from(value);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  if ((bytes[0] ?? 0) & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(INTEGER, bytes);
}

function unsignedBytes(n: number): Buffer {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a non-negative integer: ${n}`);
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return Buffer.from(out);
}

/** "1.2.840.10045.4.3.2": the first two arcs share a byte (40·a + b), then base 128, high bit = "more". */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const [a, b, ...rest] = arcs;
  if (a === undefined || b === undefined || arcs.some((x) => !Number.isSafeInteger(x) || x < 0))
    throw new RangeError(`not an OID: ${dotted}`);
  const out = [...base128(40 * a + b)];
  for (const arc of rest) out.push(...base128(arc));
  return tlv(OBJECT_IDENTIFIER, Buffer.from(out));
}

function base128(n: number): number[] {
  const out = [n % 128];
  for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) out.unshift((v % 128) | 0x80);
  return out;
}

/** A BIT STRING of whole bytes (a key, a signature): the leading 0 says no bits are unused. */
export const bitString = (bytes: Uint8Array): Buffer => tlv(BIT_STRING, Buffer.from([0]), bytes);

/**
 * A named bit list such as KeyUsage, from the numbers of the bits set (bit 0 is the first, most
 * significant bit). DER drops trailing zero bits and says in the first byte how many bits of the
 * last byte are unused.
 */
export function namedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return tlv(BIT_STRING, Buffer.from([0]));
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) {
    const i = Math.floor(bit / 8);
    bytes[i] = (bytes[i] ?? 0) | (0x80 >> (bit % 8));
  }
  return tlv(BIT_STRING, Buffer.from([7 - (highest % 8)]), bytes);
}

export const octetString = (bytes: Uint8Array): Buffer => tlv(OCTET_STRING, bytes);

export const utf8String = (text: string): Buffer => tlv(UTF8_STRING, Buffer.from(text, 'utf8'));

/**
 * RFC 5280 §4.1.2.5: UTCTime (YYMMDDHHMMSSZ) for years 1950 to 2049, GeneralizedTime
 * (YYYYMMDDHHMMSSZ) from 2050. Whole seconds in UTC; milliseconds are dropped, not rounded.
 */
export function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  if (year < 1950 || year > 9999)
    throw new RangeError(`certificate dates run from 1950 to 9999, not ${date.toISOString()}`);
  const digits = date.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return year < 2050
    ? tlv(UTC_TIME, Buffer.from(digits.slice(2), 'ascii'))
    : tlv(GENERALIZED_TIME, Buffer.from(digits, 'ascii'));
}

/** [n] EXPLICIT: a constructed context-specific tag wrapped around a whole element. */
export const explicit = (n: number, element: Uint8Array): Buffer => tlv(CONTEXT | CONSTRUCTED | n, element);

/** [n] IMPLICIT of a primitive type: the context tag replaces the type's own, over the same content. */
export const implicit = (n: number, content: Uint8Array): Buffer => tlv(CONTEXT | n, content);
