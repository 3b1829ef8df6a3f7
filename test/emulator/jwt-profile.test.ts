// The jwt profile hands out HS256 JWTs that keep §3 (the same token until exp = expires_at) and
// accepts only its own signature on a token it issued; the jwt-signature-not-checked fault on top
// of it accepts forgeries whose claims look right.

import { afterEach, describe, expect, it } from 'vitest';
import { encodeSegment, parseJwt } from '../../src/http/jwt.js';
import { forgedTokens } from '../../src/runner/forged-tokens.js';
import { start, tokenOf, type Running } from './support/client.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const statusOf = async (s: Running, bearer: string) => (await s.call('GET', '/tokens/validate', { bearer })).status;

describe('profile jwt', () => {
  it('issues an HS256 JWT whose exp is expires_at, the same one until it expires, then a new one', async () => {
    const s = (running = await start({ profiles: ['jwt'] }));
    const first = tokenOf(await s.issue());
    const jwt = parseJwt(first.token);
    expect(jwt?.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(jwt?.claims).toEqual({
      sub: s.emu.credentials.clientId,
      iat: Math.floor(s.clock.now() / 1000),
      exp: first.expiresAt,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(jwt?.segments[2]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokenOf(await s.issue())).toEqual(first);
    expect(await statusOf(s, first.token)).toBe(200);
    s.clock.set(first.expiresAt * 1000);
    expect(await statusOf(s, first.token)).toBe(401);
    expect(tokenOf(await s.issue()).token).not.toBe(first.token);
  });

  it.each([
    ['conformant', [], 401],
    ['jwt-signature-not-checked', ['jwt-signature-not-checked' as const], 200],
  ] as const)('%s: a JWT with the real claims and a forged signature or alg none → %i', async (_name, faults, want) => {
    const s = (running = await start({ profiles: ['jwt'], faults: [...faults] }));
    const token = tokenOf(await s.issue()).token;
    const jwtForgeries = forgedTokens(token).filter((f) => f.name.startsWith('JWT'));
    expect(jwtForgeries).toHaveLength(2);
    for (const f of jwtForgeries) expect(await statusOf(s, f.token), f.name).toBe(want);
    // Claims naming no client of the service are refused even without a signature check.
    const [header, , signature] = parseJwt(token)!.segments;
    const stranger = `${header}.${encodeSegment({ sub: 'nobody', exp: 4_000_000_000 })}.${signature}`;
    expect(await statusOf(s, stranger)).toBe(401);
  });
});
