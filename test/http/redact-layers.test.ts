// Redaction by value: every known value in every form a service or client can write it, whole or
// a fragment long enough to give most of it away; credentials by structure only in text from
// outside, hidden in place and never learned; the harness's own words and JSON left intact.

import { describe, expect, it } from 'vitest';
import { fingerprint, Redactor } from '../../src/http/redact.js';

const SECRET = 'p"a\\s+s/w%r d&<x>é';
const TOKEN = 'tok_AbCdEf0123456789-_xyz';
const FP = fingerprint(TOKEN);

const hex = (v: string) => Buffer.from(v).toString('hex');
const fullPercent = (v: string) =>
  [...Buffer.from(v)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
const uEscapes = (v: string) => [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
/** The value's base64 inside a longer base64 string, starting `offset` bytes in. */
const base64Inside = (v: string, offset: number, url = false) =>
  Buffer.concat([Buffer.from('xyz'.slice(0, offset)), Buffer.from(v), Buffer.from('!tail')]).toString(
    url ? 'base64url' : 'base64',
  );
const json = JSON.stringify(SECRET).slice(1, -1);

describe('known values, in every form', () => {
  const r = new Redactor();
  r.addSecret(SECRET, 'client-1');
  it.each([
    ['raw', SECRET],
    ['JSON-escaped', json],
    ['JSON-escaped twice', JSON.stringify(json).slice(1, -1)],
    ['percent-encoded', encodeURIComponent(SECRET)],
    ['percent-encoded, lower case', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['fully percent-encoded', fullPercent(SECRET)],
    ['fully percent-encoded, lower case', fullPercent(SECRET).toLowerCase()],
    ['form-encoded', encodeURIComponent(SECRET).replace(/%20/g, '+')],
    ['hex', hex(SECRET)],
    ['hex, upper case', hex(SECRET).toUpperCase()],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
    ['base64 inside a longer string, offset 1', base64Inside(SECRET, 1)],
    ['base64 inside a longer string, offset 2', base64Inside(SECRET, 2)],
    ['base64url inside a longer string, offset 1', base64Inside(SECRET, 1, true)],
    ['Basic auth of client_id:secret', Buffer.from(`client-1:${SECRET}`).toString('base64')],
    ['\\u escapes', uEscapes(SECRET)],
    [
      '\\u escapes, upper case',
      uEscapes(SECRET).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`),
    ],
    ['&# references', [...SECRET].map((c) => `&#${c.codePointAt(0)};`).join('')],
    ['&#x references', [...SECRET].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('')],
    ['HTML-escaped', SECRET.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')],
    ['reversed', [...SECRET].reverse().join('')],
  ])('hides the %s form and judges it an echo', (_name, form) => {
    expect(r.text(`before ${form} after`)).not.toContain(form);
    expect(r.text(`before ${form} after`)).toMatch(/^before .*\[redacted\].* after$/);
    expect(r.containsSecret(`x${form}x`)).toBe(true);
  });

  it('hides a token in every form as its fingerprint, and judges only tokens issued to the run', () => {
    const t = new Redactor();
    t.addToken(TOKEN);
    t.addSeen('seen-only-0123456789abcdef');
    for (const form of [
      TOKEN,
      hex(TOKEN),
      fullPercent(TOKEN),
      Buffer.from(TOKEN).toString('base64'),
      uEscapes(TOKEN),
    ]) {
      expect(t.text(`{"accessToken":"${form}"}`)).toBe(`{"accessToken":"${FP}"}`);
      expect(t.containsIssuedToken(`{"accessToken":"${form}"}`)).toBe(true);
    }
    // Inside a longer base64 string, the characters shared with the bytes around it stay.
    expect(t.text(base64Inside(TOKEN, 2))).toMatch(new RegExp(`^.{0,3}${FP}.{0,8}$`));
    expect(t.text('seen-only-0123456789abcdef')).toBe(fingerprint('seen-only-0123456789abcdef'));
    expect(t.containsIssuedToken('seen-only-0123456789abcdef')).toBe(false);
    expect(t.containsSecret(TOKEN)).toBe(false);
  });

  it('judges a token carried only whole: tokens can share a long prefix (a JWT header)', () => {
    const header = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';
    const t = new Redactor();
    t.addToken(`${header}.eyJzdWIiOiJhIn0.c2lnbmF0dXJlLWE`);
    expect(t.containsIssuedToken(`{"other":"${header}.eyJzdWIiOiJiIn0.c2lnbmF0dXJlLWI"}`)).toBe(false);
    expect(t.containsIssuedToken(`{"other":"${header}.eyJzdWIiOiJhIn0.c2lnbmF0dXJlLWE"}`)).toBe(true);
  });

  it('hides a fragment of 8 letters and digits or more, in any form, and leaves a shorter one', () => {
    const long = 'S3cr3t-0123456789abcdefghijklmnopqrstuv';
    const t = new Redactor();
    t.addSecret(long);
    // A cut at 120 characters that leaves most of the secret: the first 31 of its characters.
    for (const shown of [
      long.slice(0, 31),
      long.slice(5, 17),
      hex(long).slice(0, 24),
      fullPercent(long.slice(3, 15)),
      Buffer.from(long).toString('base64').slice(0, 30),
    ]) {
      expect(t.text(`cut: ${shown}…`), shown).toBe('cut: [redacted]…');
      // Hidden, but no proof of an echo: a secret made of words shares pieces with any text.
      expect(t.containsSecret(shown)).toBe(false);
    }
    expect(t.text(base64Inside(long, 1).slice(0, 30))).toMatch(/^.{0,3}\[redacted\]$/);
    // 7 letters and digits (`S3cr3t-0`): under a reader's window of 8, left as it is.
    expect(t.text(`cut: ${long.slice(0, 8)}…`)).toBe(`cut: ${long.slice(0, 8)}…`);
    expect(t.text(`cut: ${long.slice(0, 9)}…`)).toBe('cut: [redacted]…');
  });

  it("leaves the harness's own words even where a secret made of words shares a piece with them", () => {
    const t = new Redactor({ keep: ['--allow-production-load'] });
    t.addSecret('my-production-password');
    expect(t.text('needs --allow-production-load')).toBe('needs --allow-production-load');
    expect(t.text('cut: my-production-pa…')).toBe('cut: [redacted]…');
    expect(t.text('whole: my-production-password')).toBe('whole: [redacted]');
  });

  it('keeps the words each redactor was given, whichever was built before', () => {
    const secret = 'Q7x-production-window-9k2Lm';
    const shown = 'see --production-window-9k';
    const text = (keep: string) => {
      const t = new Redactor({ keep: [keep] });
      t.addSecret(secret);
      return t.text(shown);
    };
    for (const order of [
      ['--production-window-9k', 'nothing'],
      ['nothing', '--production-window-9k'],
    ])
      for (const keep of order) {
        if (keep === 'nothing') expect(text(keep)).not.toContain('production-window');
        else expect(text(keep)).toBe(shown);
      }
  });

  it('leaves the client_id: a piece of the Basic auth pair that is the client_id alone is no secret', () => {
    const t = new Redactor();
    t.addSecret('Zx9-random-secret-0123', 'ces-production-4f2a9c');
    expect(t.text('needs --allow-production-load; client ces-production-4f2a9c')).toBe(
      'needs --allow-production-load; client ces-production-4f2a9c',
    );
    expect(t.text(`Basic ${Buffer.from('ces-production-4f2a9c:Zx9-random-secret-0123').toString('base64')}`)).toBe(
      'Basic [redacted]',
    );
  });

  it('hides a short secret where it stands alone, not inside other words', () => {
    const short = new Redactor();
    short.addSecret('ab1');
    expect(short.text('key=ab1, "ab1" and cab1d')).toBe('key=[redacted], "[redacted]" and cab1d');
    expect(short.containsSecret('xab1x')).toBe(false);
    expect(short.containsSecret('{"s":"ab1"}')).toBe(true);
  });

  it('keeps JSON text JSON: a replacement never eats an escape', () => {
    const t = new Redactor();
    t.addSecret(SECRET);
    const report = JSON.stringify(
      { message: `echoed ${SECRET} and cut ${json.slice(0, 14)}`, id: 'business.invalid-token-401' },
      null,
      2,
    );
    const safe = t.file(report);
    expect(JSON.parse(safe)).toMatchObject({ id: 'business.invalid-token-401' });
    expect(safe).not.toContain(json.slice(0, 14));
  });
});

describe('credentials found by structure, in text from outside', () => {
  it.each([
    [
      'a JSON token field',
      `{"error":"invalid_request","token":"${TOKEN}"}`,
      `{"error":"invalid_request","token":"${FP}"}`,
    ],
    ['spaced, cut-off JSON', `{"access_token" : "${TOKEN}`, `{"access_token" : "${FP}`],
    [
      'escaped JSON in a string',
      `{"request":"{\\"access_token\\":\\"${TOKEN}\\"}"}`,
      `{"request":"{\\"access_token\\":\\"${FP}\\"}"}`,
    ],
    ['a form field', `grant=x&client_secret=hunter2hunter&y=1`, `grant=x&client_secret=[redacted]&y=1`],
    ['a Bearer header in a log', `GET /x Authorization: Bearer ${TOKEN}`, `GET /x Authorization: Bearer ${FP}`],
    ['Set-Cookie', `set-cookie: session=${TOKEN}; Path=/; HttpOnly`, `set-cookie: session=${FP}; Path=/; HttpOnly`],
    ['a JSON header map', `{"set-cookie":"sid=${TOKEN}; Path=/"}`, `{"set-cookie":"sid=${FP}; Path=/"}`],
    [
      'URL userinfo',
      'fetch https://alice:pa55word@example.test/x failed',
      'fetch https://alice:[redacted]@example.test/x failed',
    ],
    [
      'Basic auth',
      `Authorization: Basic ${Buffer.from('id:s3cr3t-basic').toString('base64')}`,
      'Authorization: Basic [redacted]',
    ],
  ])('hides %s', (_name, input, want) => {
    expect(new Redactor().foreign(input)).toBe(want);
  });

  it('leaves what only looks like a credential: auth-params, placeholders, fingerprints', () => {
    const text = `WWW-Authenticate: Bearer realm="ces", error="invalid_token"; sent Bearer not-a-token; token ${FP}; "token":{"client_id":"c"}`;
    expect(new Redactor().foreign(text)).toBe(text);
  });

  it('learns nothing: a word after client_secret= is hidden there and nowhere else', () => {
    const r = new Redactor();
    expect(r.foreign('invalid: client_secret=business was wrong')).toBe('invalid: client_secret=[redacted] was wrong');
    expect(r.text('business.invalid-token-401')).toBe('business.invalid-token-401');
    expect(r.foreign('{"business.invalid-token-401":1}')).toBe('{"business.invalid-token-401":1}');
    expect(r.containsSecret('business')).toBe(false);
  });

  it('keeps a quoted error_uri JSON: the escape before a closing quote is not taken as part of a value', () => {
    const body = JSON.stringify({
      quoted: JSON.stringify({ error: 'unauthorized', error_uri: 'https://docs.example/errors?token=none' }),
    });
    const safe = new Redactor().foreign(body);
    expect(() => JSON.parse(safe)).not.toThrow();
  });
});
