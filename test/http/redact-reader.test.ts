// The reader's view (src/http/redact/reader.ts): a value is found however a reader would still read
// it (spaced, wrapped, case-changed, hex, base64, %-encoded, reversed, two layers stacked, split over
// fields), the right characters are replaced, and pieces of one value in one answer judge as the value.

import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';

const SECRET = 'Zq8xK2mPw9Lr4Tn7Vb3Hc6Yd';
const TOKEN = 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9f';
const hex = (s: string) => Buffer.from(s).toString('hex');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const rev = (s: string) => [...s].reverse().join('');
const pct = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

const LAYOUTS: Array<[string, (v: string) => string]> = [
  ['spaced', (v) => [...v].join(' ')],
  ['broken across lines', (v) => `${v.slice(0, 9)}\n  ${v.slice(9)}`],
  ['upper-cased', (v) => v.toUpperCase()],
  ['lower-cased', (v) => v.toLowerCase()],
  ['hex', hex],
  ['reversed hex', (v) => rev(hex(v))],
  ['hex of the reversed value', (v) => hex(rev(v))],
  ['base64 wrapped at 8', (v) => b64(v).replace(/(.{8})/g, '$1\n')],
  [
    'base64url spaced in fives',
    (v) =>
      Buffer.from(v)
        .toString('base64url')
        .replace(/(.{5})/g, '$1 '),
  ],
  ['%-encoded', pct],
  ['base64 of hex', (v) => b64(hex(v))],
  ['hex of base64', (v) => hex(b64(v))],
  ['base64 of reversed hex', (v) => b64(rev(hex(v)))],
  ['%-encoded base64, upper-cased escapes', (v) => pct(b64(v)).toUpperCase()],
  ['split over two JSON fields', (v) => `{"a":"${v.slice(0, 12)}","b":"${v.slice(12)}"}`],
];

const redactor = () => {
  const r = new Redactor({ keep: ['the client secret came back in 2 answers: token.no-secret-echo'] });
  r.addSecret(SECRET, 'client');
  r.addToken(TOKEN);
  return r;
};

describe('the reader’s view', () => {
  it.each(LAYOUTS)('hides the secret and a token %s, and judges each whole', (_name, layout) => {
    const r = redactor();
    for (const [value, mark, holds] of [
      [SECRET, '[redacted]', (t: string) => r.containsSecret(t)],
      [TOKEN, 'tk_', (t: string) => r.containsIssuedToken(t)],
    ] as const) {
      const shown = `before ${layout(value)} after`;
      const safe = r.text(shown);
      expect(safe).toMatch(/^before /);
      expect(safe).toMatch(/ after$/);
      expect(safe).toContain(mark);
      // Nothing of the value is left a reader could read: no 8 of its letters and digits in a row.
      expect(safe.replace(/[^A-Za-z0-9]/g, '').toLowerCase()).not.toContain(value.toLowerCase().slice(0, 8));
      expect(holds(shown)).toBe(true);
    }
  });

  it('keeps the structure around a value spread over two JSON strings: the text still parses', () => {
    const r = redactor();
    const body = JSON.stringify({ first: TOKEN.slice(0, 20), second: TOKEN.slice(20) });
    const safe = r.text(body);
    expect(JSON.parse(safe)).toEqual({ first: expect.stringMatching(/^tk_/), second: expect.stringMatching(/^tk_/) });
  });

  it('judges pieces as the whole only when they cover all of it; a piece hides but proves nothing', () => {
    const r = redactor();
    expect(r.containsIssuedToken(`{"a":"${TOKEN.slice(0, 22)}"}`)).toBe(false);
    expect(r.text(`{"a":"${TOKEN.slice(0, 22)}"}`)).toMatch(/"tk_[0-9a-f]+"/);
    expect(r.containsIssuedToken(`{"a":"${TOKEN.slice(0, 22)}","b":"${TOKEN.slice(22)}"}`)).toBe(true);
    expect(r.containsSecret(`x-part: ${SECRET.slice(0, 12).toUpperCase()}\n\n{"rest":"${SECRET.slice(12)}"}`)).toBe(
      true,
    );
  });

  it('leaves text that holds no 8 letters and digits of a value in a row, and the harness’s own words', () => {
    const r = redactor();
    const clean = [
      'the client secret came back in 2 answers: token.no-secret-echo',
      `a piece: ${SECRET.slice(0, 7)} and ${TOKEN.slice(30, 37)}`,
      hex('an ordinary sentence in hex'),
      b64('an ordinary sentence in base64, long enough to decode'),
    ];
    for (const text of clean) expect(r.text(text)).toBe(text);
  });

  it('matches a value of words only whole, so its words never censor others', () => {
    const r = new Redactor();
    r.addSeen('invalid_or_expired_credentials');
    expect(r.text('check your credentials')).toBe('check your credentials');
    expect(r.text('INVALID OR EXPIRED CREDENTIALS')).toMatch(/^tk_[0-9a-f]+$/);
  });
});
