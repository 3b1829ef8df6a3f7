// What an output shows of a service's answer: the spec's own fields as they are, free text through
// the redactor and cut, every other value as its shape. A secret or token in a field of the
// service's own, however encoded or laid out, is never quoted; --verbose-bodies shows the whole
// answer, still through the redactor.

import { describe, expect, it } from 'vitest';
import { quoteBody, quoteField, quoteHeader } from '../../src/http/quote-body.js';
import { Redactor } from '../../src/http/redact.js';

const SECRET = 'cs_live_7Qm2VxP9Lk4TzR8w';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.dGhpcyBpcyBhIHRva2Vu.c2lnbmF0dXJl';

function redactor(): Redactor {
  const r = new Redactor();
  r.addSecret(SECRET, 'client-1');
  r.addToken(TOKEN);
  return r;
}

const json = (body: unknown, request = 'POST /tokens') => ({ text: JSON.stringify(body), json: body, request });
const reverse = (s: string) => [...s].reverse().join('');
const hex = (s: string) => Buffer.from(s).toString('hex');

describe('quoting by the spec', () => {
  const cases: Array<{
    name: string;
    answer: { text: string; json?: unknown; request?: string; headers?: Record<string, string> };
    shown: string;
  }> = [
    {
      name: "§7's error code is shown, a field of the service's own as its shape",
      answer: json({ error: 'unauthorized', detail: 'x'.repeat(64) }),
      shown: '`{"error":"unauthorized","detail":"<string, 64 chars, sha256:',
    },
    {
      name: 'the token response: token as its shape and mark, expires_at and token_type as they are',
      answer: json({ token: TOKEN, expires_at: 1764000000, token_type: 'Bearer' }),
      shown: `\`{"token":"<string, ${TOKEN.length} chars, holds tk_`,
    },
    {
      name: 'validate: valid and message as they are',
      answer: json({ valid: true, message: 'Token is valid' }, 'GET /tokens/validate'),
      shown: '`{"valid":true,"message":"Token is valid"}`',
    },
    {
      name: 'a non-spec number is its type',
      answer: json({ error: 'rate_limited', retry_in: 30 }),
      shown: '`{"error":"rate_limited","retry_in":<number>}`',
    },
    {
      name: 'an error code too long to be one is its shape',
      answer: json({ error: 'e'.repeat(41) }),
      shown: '`{"error":"<string, 41 chars, sha256:',
    },
    {
      name: 'a key that is no name is its shape',
      answer: json({ ['k'.repeat(50)]: 1, 'a b': 2 }),
      shown: '`{"<key, 50 chars, sha256:',
    },
    {
      name: 'nested fields are shapes, even with a spec name',
      answer: json({ data: { error: 'unauthorized' }, items: [1, 2, 3, 4] }),
      shown: '`{"data":{"error":"<string, 12 chars>"},"items":[<number>,<number>,<number>,…4 items]}`',
    },
    {
      name: 'the health line is free text, cut',
      answer: {
        text: `service is alive at 2026-11-29 01:00:00 ${'y'.repeat(200)}`,
        request: 'POST /tokens/health_check',
      },
      shown: '`service is alive at 2026-11-29 01:00:00 yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy…`',
    },
    {
      name: 'text elsewhere is its content type and length',
      answer: {
        text: '<html>Forbidden</html>',
        request: 'POST /tokens',
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
      shown: '<text/html, 22 chars, sha256:',
    },
    { name: 'an empty body', answer: { text: '', request: 'POST /tokens' }, shown: '(empty body)' },
  ];

  it.each(cases)('$name', ({ answer, shown }) => {
    expect(quoteBody(redactor(), answer)).toContain(shown);
  });

  // The layouts and encodings that leaked before: a field of the service's own is never quoted,
  // so none of them reaches the output, whether or not the matcher recognises the encoding.
  const planted: Array<{ name: string; body: Record<string, unknown>; gone: string[] }> = [
    {
      name: 'the secret spaced out',
      body: { error: 'unauthorized', echo: [...SECRET].join(' ') },
      gone: [SECRET.slice(0, 8)],
    },
    {
      name: 'the secret upper-cased',
      body: { error: 'unauthorized', echo: SECRET.toUpperCase() },
      gone: [SECRET.toUpperCase().slice(0, 8)],
    },
    { name: 'the token in hex', body: { error: 'unauthorized', t: hex(TOKEN) }, gone: [hex(TOKEN).slice(0, 16)] },
    {
      name: 'the token reversed',
      body: { error: 'unauthorized', t: reverse(TOKEN) },
      gone: [reverse(TOKEN).slice(0, 8)],
    },
    {
      name: 'the token split over two fields',
      body: { error: 'unauthorized', a: TOKEN.slice(0, 30), b: TOKEN.slice(30) },
      gone: [TOKEN.slice(0, 12), TOKEN.slice(30, 42)],
    },
    {
      name: 'a rotated token in a business answer',
      body: { result: 'ok', next_token: 'rot_' + 'Z9'.repeat(20) },
      gone: ['Z9Z9Z9Z9'],
    },
  ];

  it.each(planted)('$name is not quoted', ({ body, gone }) => {
    const shown = quoteBody(redactor(), json(body));
    expect(shown).toMatch(/^`\{"(error|result)":"(unauthorized|<string, 2 chars>)"/);
    for (const piece of gone) expect(shown).not.toContain(piece);
  });

  it('--verbose-bodies shows the whole answer, through the redactor', () => {
    const answer = json({ error: 'unauthorized', detail: 'client not allowed', token: TOKEN });
    const shown = quoteBody(redactor(), answer, { verbose: true });
    expect(shown).toContain('"detail":"client not allowed"');
    expect(shown).not.toContain(TOKEN);
    expect(shown).toMatch(/tk_[0-9a-f]{8}/);
  });

  it('free text the spec allows passes the redactor', () => {
    const shown = quoteBody(
      redactor(),
      json({ valid: false, message: `bad secret ${SECRET}` }, 'GET /tokens/validate'),
    );
    expect(shown).not.toContain(SECRET);
    expect(shown).toContain('"message":"bad secret [redacted]"');
  });
});

describe('one field or header, by the same rules', () => {
  const cases: Array<{ name: string; shown: () => string; want: string | RegExp }> = [
    { name: 'expires_at as it is', shown: () => quoteField(redactor(), 'expires_at', 1764000000), want: '1764000000' },
    {
      name: 'expires_at too long to be a time: its shape',
      shown: () => quoteField(redactor(), 'expires_at', 'x'.repeat(50)),
      want: /^"<string, 50 chars, sha256:[0-9a-f]{8}>"$/,
    },
    {
      name: 'an object in a code field: its shape, nothing nested quoted',
      shown: () => quoteField(redactor(), 'token_type', { value: 'Bearer-' + 'q'.repeat(30) }),
      want: /^\{"value":"<string, 37 chars, sha256:[0-9a-f]{8}>"\}$/,
    },
    { name: 'a missing field', shown: () => quoteField(redactor(), 'valid', undefined), want: 'absent' },
    {
      name: 'WWW-Authenticate is text: redacted and cut',
      shown: () =>
        quoteHeader(redactor(), 'www-authenticate', `Bearer error="invalid_token", hint="${TOKEN}" ${'z'.repeat(80)}`),
      want: /^"Bearer error=\\"invalid_token\\", hint=\\"tk_[0-9a-f]{8}\\" z+…"$/,
    },
    {
      name: 'a header the spec does not quote: its shape',
      shown: () => quoteHeader(redactor(), 'x-debug', 'internal-trace-0123456789abcdef'),
      want: /^"<string, 31 chars, sha256:[0-9a-f]{8}>"$/,
    },
  ];
  it.each(cases)('$name', ({ shown, want }) => {
    if (typeof want === 'string') expect(shown()).toBe(want);
    else expect(shown()).toMatch(want);
  });
});
