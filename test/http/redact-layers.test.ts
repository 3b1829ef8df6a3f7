// The three layers of redaction, each on its own: known values in every encoding, credentials
// found by structure, and structural finds learned so that their other forms are caught.

import { describe, expect, it } from 'vitest';
import { fingerprint, Redactor } from '../../src/http/redact.js';

const SECRET = 'p"a\\s+s/w%r d&<x>';
const TOKEN = 'tok_AbCdEf0123456789-_xyz';
const FP = fingerprint(TOKEN);

describe('known values, in every encoding', () => {
  const r = new Redactor();
  r.addSecret(SECRET, 'client-1');
  const json = JSON.stringify(SECRET).slice(1, -1);
  it.each([
    ['raw', SECRET],
    ['JSON-escaped', json],
    ['JSON-escaped twice', JSON.stringify(json).slice(1, -1)],
    ['percent-encoded', encodeURIComponent(SECRET)],
    ['form-encoded', encodeURIComponent(SECRET).replace(/%20/g, '+')],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
    ['Basic auth of client_id:secret', Buffer.from(`client-1:${SECRET}`).toString('base64')],
    ['HTML-escaped', SECRET.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')],
  ])('hides the %s form', (_name, form) => {
    const out = r.text(`before ${form} after`);
    expect(out).toBe('before [redacted] after');
    expect(r.containsSecret(`x${form}x`)).toBe(true);
  });

  it('hides a short secret where it stands alone, not inside other words', () => {
    const short = new Redactor();
    short.addSecret('ab1');
    expect(short.text('key=ab1, "ab1" and cab1d')).toBe('key=[redacted], "[redacted]" and cab1d');
    expect(short.containsSecret('xab1x')).toBe(false);
    expect(short.containsSecret('{"s":"ab1"}')).toBe(true);
  });
});

describe('credentials found by structure', () => {
  it.each([
    ['a JSON token field', `{"error":"invalid_request","token":"${TOKEN}"}`, `{"error":"invalid_request","token":"${FP}"}`],
    ['spaced, cut-off JSON', `{"access_token" : "${TOKEN}`, `{"access_token" : "${FP}`],
    ['escaped JSON in a string', `{"request":"{\\"access_token\\":\\"${TOKEN}\\"}"}`, `{"request":"{\\"access_token\\":\\"${FP}\\"}"}`],
    ['a form field', `grant=x&client_secret=hunter2hunter&y=1`, `grant=x&client_secret=[redacted]&y=1`],
    ['a Bearer header in a log', `GET /x Authorization: Bearer ${TOKEN}`, `GET /x Authorization: Bearer ${FP}`],
    ['Set-Cookie', `set-cookie: session=${TOKEN}; Path=/; HttpOnly`, `set-cookie: session=${FP}; Path=/; HttpOnly`],
    ['a JSON header map', `{"set-cookie":"sid=${TOKEN}; Path=/"}`, `{"set-cookie":"sid=${FP}; Path=/"}`],
    ['URL userinfo', 'fetch https://alice:pa55word@example.test/x failed', 'fetch https://alice:[redacted]@example.test/x failed'],
    ['Basic auth', `Authorization: Basic ${Buffer.from('id:s3cr3t-basic').toString('base64')}`, 'Authorization: Basic [redacted]'],
  ])('hides %s', (_name, input, want) => {
    expect(new Redactor().text(input)).toBe(want);
  });

  it('leaves what only looks like a credential: auth-params, placeholders, fingerprints', () => {
    const r = new Redactor();
    const text = `WWW-Authenticate: Bearer realm="ces", error="invalid_token"; sent Bearer not-a-token; token ${FP}; "token":{"client_id":"c"}`;
    expect(r.text(text)).toBe(text);
  });
});

describe('structural finds are learned', () => {
  it('hides a token found in a field wherever it appears later, in any encoding', () => {
    const r = new Redactor();
    r.text(`{"token":"${TOKEN}"}`);
    expect(r.text(`plain ${TOKEN} and ${Buffer.from(TOKEN).toString('base64')}`)).toBe(`plain ${FP} and ${FP}`);
  });

  it('learns the secret of a Basic header and the password of a URL', () => {
    const r = new Redactor();
    r.text(`Basic ${Buffer.from('id:learned-secret').toString('base64')} https://u:url-password@h/`);
    expect(r.text('learned-secret url-password')).toBe('[redacted] [redacted]');
  });

  it('does not count a learned value as the client secret being echoed', () => {
    const r = new Redactor();
    r.text('{"client_secret":"someone-elses-secret"}');
    expect(r.containsSecret('someone-elses-secret')).toBe(false);
  });
});
