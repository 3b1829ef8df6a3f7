// A JWT as a token: dots, `-` and `_`, a header every token shares. The whole token and its own
// parts (claims, signature) are hidden wherever they stand; so is the shared header, as any piece
// of 12 characters or more of a token is (src/http/redact/matcher.ts): it says nothing secret,
// but a rule with no exception is one a reviewer can trust.

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint, Redactor } from '../../src/http/redact.js';
import { encodeSegment } from '../../src/http/jwt.js';
import { forgedTokens } from '../../src/runner/forged-tokens.js';

const header = encodeSegment({ alg: 'HS256', typ: 'JWT' });
const claims = encodeSegment({ sub: 'client-1', iat: 1_790_000_000, exp: 1_790_086_400, jti: 'Zm9vYmFyLWJhei1xdXV4' });
const signature = createHmac('sha256', 'key').update(`${header}.${claims}`).digest('base64url');
const jwt = `${header}.${claims}.${signature}`;
const fp = fingerprint(jwt);

describe('Redactor with a JWT', () => {
  it.each([
    ['raw in text', `token ${jwt} here`, `token ${fp} here`],
    ['as a Bearer header', `Authorization: Bearer ${jwt}`, `Authorization: Bearer ${fp}`],
    ['in a JSON body', JSON.stringify({ token: jwt }), JSON.stringify({ token: fp })],
    ['base64url-encoded', `x ${Buffer.from(jwt).toString('base64url')} y`, `x ${fp} y`],
    ['its signature alone', `bad signature ${signature}`, `bad signature ${fp}`],
    ['its claims alone', `claims=${claims};`, `claims=${fp};`],
  ])('hides it %s', (_how, input, want) => {
    const r = new Redactor();
    r.addToken(jwt);
    expect(r.text(input)).toBe(want);
  });

  it('hides the header too, standing alone, as a piece of the token', () => {
    const r = new Redactor();
    r.addToken(jwt);
    expect(r.text(`header ${header}`)).not.toContain(header);
  });

  it('names a learned forgery by its own fingerprint, not by the real token it resembles', () => {
    const r = new Redactor();
    r.addToken(jwt);
    const forged = forgedTokens(jwt);
    for (const f of forged) r.addToken(f.token);
    for (const f of forged) expect(r.text(`Bearer ${f.token} !`)).toBe(`Bearer ${fingerprint(f.token)} !`);
  });
});
