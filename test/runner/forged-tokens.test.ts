import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { forgedTokens } from '../../src/runner/forged-tokens.js';
import { encodeSegment, parseJwt } from '../../src/http/jwt.js';

const header = encodeSegment({ alg: 'HS256', typ: 'JWT' });
const claims = encodeSegment({ sub: 'client-1', iat: 1_790_000_000, exp: 1_790_086_400, jti: 'abc' });
const jwt = `${header}.${claims}.${createHmac('sha256', 'key').update(`${header}.${claims}`).digest('base64url')}`;

const differAt = (a: string, b: string) => [...a].flatMap((c, i) => (c === b[i] ? [] : [i]));

describe('forgedTokens: one character changed, shape kept', () => {
  it.each([
    ['base64url, 32 bytes', randomBytes(32).toString('base64url'), /^[A-Za-z0-9_-]+$/],
    ['base64 with padding', randomBytes(32).toString('base64'), /^[A-Za-z0-9+/]+=*$/],
    ['hex', randomBytes(20).toString('hex'), /^[0-9a-f]+$/],
    ['prefixed, other characters', `ces_live.${randomBytes(12).toString('hex')}~x`, /^[A-Za-z0-9_.~]+$/],
    ['a JWT', jwt, /^[A-Za-z0-9_.-]+$/],
  ])('%s', (_kind, token, alphabet) => {
    const changed = forgedTokens(token).slice(0, 3);
    expect(changed).toHaveLength(3);
    const positions = changed.map((f) => {
      expect(f.token).toHaveLength(token.length);
      expect(f.token).toMatch(alphabet);
      const at = differAt(token, f.token);
      expect(at).toHaveLength(1);
      return at[0]!;
    });
    expect(positions[0]).toBeLessThan(3);
    expect(positions[2]).toBeGreaterThan(token.length - 4);
    expect(Math.abs(positions[1]! - token.length / 2)).toBeLessThan(3);
  });

  it('a token of letters and digits only (base64 or base64url alike) keeps to letters and digits', () => {
    // Padded base64 whose middle character flips to '_' in base64url's alphabet (seen once in CI
    // with a random token: one in a few of them has neither '+' nor '/').
    const token = 'uw9nu5rsCw3W1iasBltwxmfUquQJ9Dr00oEvI9et1z8=';
    for (const f of forgedTokens(token)) {
      expect(f.token).toMatch(/^[A-Za-z0-9]+=*$/);
      expect(differAt(token, f.token)).toHaveLength(1);
    }
  });

  it('changes data, not padding bits, at the end of base64: the decoded bytes differ', () => {
    for (let i = 0; i < 50; i++) {
      const token = randomBytes(32).toString('base64url');
      const last = forgedTokens(token)[2]!.token;
      expect(Buffer.from(last, 'base64url').equals(Buffer.from(token, 'base64url'))).toBe(false);
    }
  });
});

describe('forgedTokens: JWTs', () => {
  it('adds its claims under another signature and under alg none, both still well-formed JWTs', () => {
    const [other, none] = forgedTokens(jwt).slice(3);
    expect(parseJwt(other!.token)).toMatchObject({
      header: { alg: 'HS256' },
      segments: [header, claims, expect.any(String)],
    });
    expect(other!.token).not.toBe(jwt);
    expect(parseJwt(none!.token)).toMatchObject({
      header: { alg: 'none', typ: 'JWT' },
      segments: [expect.any(String), claims, ''],
    });
  });

  it('adds none for an opaque token', () => {
    expect(forgedTokens(randomBytes(32).toString('base64url'))).toHaveLength(3);
  });
});
