// The DER encoder against hand-checked encodings (X.690's own example where there is one), and the
// bytes of an iPAddress name: every rule a strict parser enforces, one table each.

import { describe, expect, it } from 'vitest';
import {
  boolean,
  explicit,
  implicit,
  integer,
  namedBits,
  oid,
  sequence,
  time,
  tlv,
} from '../../../src/tls/certs/der.js';
import { ipBytes } from '../../../src/tls/certs/x509.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('lengths', () => {
  it.each([
    [0, '0400'],
    [127, '047f'],
    [128, '048180'],
    [255, '0481ff'],
    [256, '04820100'],
    [65_536, '0483010000'],
  ])('a %i-byte content gets the shortest definite length', (n, head) => {
    expect(hex(tlv(0x04, Buffer.alloc(n))).slice(0, head.length)).toBe(head);
    expect(tlv(0x04, Buffer.alloc(n))).toHaveLength(head.length / 2 + n);
  });
});

describe('INTEGER', () => {
  it.each([
    [0, '020100'],
    [2, '020102'],
    [127, '02017f'],
    [128, '02020080'],
    [256, '02020100'],
    [Buffer.from('000001', 'hex'), '020101'],
    [Buffer.from('ff', 'hex'), '020200ff'],
    [Buffer.from('00', 'hex'), '020100'],
    [Buffer.alloc(0), '020100'],
    [Buffer.from('7fffffffffffffffffff', 'hex'), '020a7fffffffffffffffffff'],
  ])('%o is encoded in the fewest bytes and stays non-negative', (value, expected) => {
    expect(hex(integer(value))).toBe(expected);
  });

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1])('refuses %d', (n) => {
    expect(() => integer(n)).toThrow(RangeError);
  });
});

describe('OBJECT IDENTIFIER', () => {
  it.each([
    ['1.2.840.10045.4.3.2', '06082a8648ce3d040302'], // ecdsa-with-SHA256
    ['2.5.29.17', '0603551d11'], // subjectAltName
    ['1.3.6.1.5.5.7.3.1', '06082b06010505070301'], // serverAuth
    ['2.999.3', '0603883703'], // X.690 §8.19.5's example: the first byte pair exceeds 127
  ])('%s', (dotted, expected) => {
    expect(hex(oid(dotted))).toBe(expected);
  });

  it.each(['1', '1.x.3', '1.-2.3'])('refuses %s', (dotted) => {
    expect(() => oid(dotted)).toThrow(RangeError);
  });
});

describe('named bit lists (KeyUsage)', () => {
  it.each([
    [[0], '03020780'], // digitalSignature: 7 unused bits
    [[5, 6], '03020106'], // keyCertSign, cRLSign: RFC 5280's CA key usage
    [[0, 7], '03020081'],
    [[8], '0303070080'],
    [[], '030100'],
  ])('%o drops the trailing zero bits and counts the unused ones', (bits, expected) => {
    expect(hex(namedBits(bits))).toBe(expected);
  });
});

describe('time (RFC 5280 §4.1.2.5)', () => {
  it.each([
    ['1950-01-01T00:00:00.000Z', 0x17, '500101000000Z'],
    ['2026-03-04T05:06:07.999Z', 0x17, '260304050607Z'], // milliseconds dropped, not rounded up
    ['2049-12-31T23:59:59.000Z', 0x17, '491231235959Z'],
    ['2050-01-01T00:00:00.000Z', 0x18, '20500101000000Z'],
  ])('%s', (iso, tag, text) => {
    const encoded = time(new Date(iso));
    expect(encoded[0]).toBe(tag);
    expect(encoded.subarray(2).toString('ascii')).toBe(text);
  });

  it('refuses a date before 1950, which neither form can say', () => {
    expect(() => time(new Date('1949-12-31T23:59:59Z'))).toThrow(RangeError);
  });
});

describe('tags', () => {
  it.each([
    ['BOOLEAN TRUE', boolean(true), '0101ff'],
    ['an empty SEQUENCE', sequence(), '3000'],
    ['[0] EXPLICIT INTEGER 2 (the v3 version field)', explicit(0, integer(2)), 'a003020102'],
    ['[3] EXPLICIT', explicit(3, sequence()), 'a3023000'],
    ['[2] IMPLICIT (a dNSName)', implicit(2, Buffer.from('a')), '820161'],
  ])('%s', (_label, encoded, expected) => {
    expect(hex(encoded)).toBe(expected);
  });
});

describe('IP addresses in subjectAltName', () => {
  it.each([
    ['127.0.0.1', '7f000001'],
    ['10.1.2.3', '0a010203'],
    ['::1', '00000000000000000000000000000001'],
    ['::', '00000000000000000000000000000000'],
    ['fd00::5', 'fd000000000000000000000000000005'],
    ['1::', '00010000000000000000000000000000'],
    ['2001:db8:0:0:1:0:0:1', '20010db8000000000001000000000001'],
    ['2001:DB8::ab:1', '20010db8000000000000000000ab0001'],
    ['::ffff:10.1.2.3', '00000000000000000000ffff0a010203'],
  ])('%s', (address, expected) => {
    expect(hex(ipBytes(address))).toBe(expected);
  });

  it.each(['localhost', '1.2.3', 'fe80::1%eth0', '::1::2'])('refuses %s', (address) => {
    expect(() => ipBytes(address)).toThrow(RangeError);
  });
});
