// Conformant behaviour of every route (§3, §4, §7), against a real emulator on port 0.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, T0, tokenOf, type Running } from './support/client.js';

let s: Running;
beforeAll(async () => {
  s = await start({ tokenTtlS: 60, rateLimit: { rps: 0, burst: 0 } });
});
afterAll(() => s.close());

const UNAUTHORIZED = { error: 'unauthorized' };

describe('POST /tokens (§4.1)', () => {
  it('issues a Bearer token with integer expires_at in seconds and no-store headers', async () => {
    const a = await s.issue();
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.headers.pragma).toBe('no-cache');
    expect(Object.keys(a.json as object).sort()).toEqual(['expires_at', 'token', 'token_type']);
    const { token, expiresAt } = tokenOf(a);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes, base64url
    expect(Number.isInteger(expiresAt)).toBe(true);
    // Valid on [issue, expires_at): lifetime equals the ttl within 1 s, never more.
    const lifetimeMs = expiresAt * 1000 - s.clock.now();
    expect(lifetimeMs).toBeGreaterThan((s.ttlS - 1) * 1000);
    expect(lifetimeMs).toBeLessThanOrEqual(s.ttlS * 1000);
    expect((a.json as { token_type: string }).token_type).toBe('Bearer');
  });

  it('returns the same token until expires_at, then a new one (§3)', async () => {
    s.clock.set(T0 + 10 * 60_000);
    const first = tokenOf(await s.issue());
    s.clock.advance(20_000);
    const again = tokenOf(await s.issue());
    expect(again).toEqual(first);
    s.clock.set(first.expiresAt * 1000 - 1);
    expect(tokenOf(await s.issue()).token).toBe(first.token);
    s.clock.set(first.expiresAt * 1000);
    const fresh = tokenOf(await s.issue());
    expect(fresh.token).not.toBe(first.token);
    expect(fresh.expiresAt).toBe(first.expiresAt + s.ttlS);
  });

  it.each([
    ['not JSON', 'token please'],
    ['empty', ''],
    ['flat object without token', JSON.stringify({ client_id: 'x', client_secret: 'y' })],
    ['missing secret', JSON.stringify({ token: { client_id: 'x' } })],
    ['non-string id', JSON.stringify({ token: { client_id: 1, client_secret: 'y' } })],
    ['token not an object', JSON.stringify({ token: 'abc' })],
    ['array', '[]'],
  ])('answers 400 invalid_request for a body that is %s', async (_, body) => {
    const a = await s.call('POST', '/tokens', { body, headers: { 'content-type': 'application/json' } });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ error: 'invalid_request' });
  });

  it('answers the flat body with valid credentials with 400 too', async () => {
    const { clientId, clientSecret } = s.emu.credentials;
    const a = await s.call('POST', '/tokens', { json: { client_id: clientId, client_secret: clientSecret } });
    expect(a.status).toBe(400);
  });

  it.each([
    ['a wrong secret', (c: { clientId: string }) => ({ clientId: c.clientId, clientSecret: 'wrong' })],
    ['an unknown client', (c: { clientSecret: string }) => ({ clientId: 'nobody', clientSecret: c.clientSecret })],
  ])('answers 401 unauthorized with a Bearer challenge for %s (§4.1 rule 2, §7)', async (_, make) => {
    const a = await s.issue(0, make(s.emu.credentials));
    expect(a.status).toBe(401);
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.json).toEqual(UNAUTHORIZED);
    expect(a.headers['www-authenticate']).toBe('Bearer realm="ces"');
  });

  it('answers other methods with 405 and Allow', async () => {
    const a = await s.call('GET', '/tokens');
    expect(a.status).toBe(405);
    expect(a.headers.allow).toBe('POST');
    expect(a.json).toEqual({ error: 'method_not_allowed' });
  });
});

describe('POST /tokens/health_check (§4.2)', () => {
  it('answers one line of text with the emulator time, no credentials needed', async () => {
    s.clock.set(Date.UTC(2026, 10, 22, 10, 0, 7, 900));
    const a = await s.call('POST', '/tokens/health_check');
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^text\/plain/);
    expect(a.text).toBe('Credit Evaluation Service is alive. Timestamp: 2026-11-22 10:00:07 UTC');
    expect(a.json).toBeUndefined();
  });

  it('is POST only', async () => {
    expect((await s.call('GET', '/tokens/health_check')).status).toBe(405);
  });
});

describe('/tokens/validate (§4.3)', () => {
  it.each(['GET', 'POST'])('%s with a live token answers 200 {valid:true, message}', async (method) => {
    const { token } = tokenOf(await s.issue());
    const a = await s.call(method, '/tokens/validate', { bearer: token });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ valid: true, message: 'Token is valid' });
  });

  it.each([
    ['no header', {}, 'Bearer realm="ces"'],
    [
      'another scheme',
      { headers: { authorization: 'Basic Zm9vOmJhcg==' } },
      'Bearer realm="ces", error="invalid_token"',
    ],
    ['garbage', { headers: { authorization: 'Bearer !!!' } }, 'Bearer realm="ces", error="invalid_token"'],
    ['an unknown token', { bearer: 'A'.repeat(43) }, 'Bearer realm="ces", error="invalid_token"'],
  ])('answers 401 for %s', async (_, options, challenge) => {
    const a = await s.call('GET', '/tokens/validate', options);
    expect(a.status).toBe(401);
    expect(a.json).toEqual(UNAUTHORIZED);
    expect(a.headers['www-authenticate']).toBe(challenge);
  });

  it('answers 401 from the instant expires_at is reached (§3, §4.3)', async () => {
    s.clock.set(T0 + 60 * 60_000);
    const { token, expiresAt } = tokenOf(await s.issue());
    s.clock.set(expiresAt * 1000 - 1);
    expect((await s.call('GET', '/tokens/validate', { bearer: token })).status).toBe(200);
    s.clock.set(expiresAt * 1000);
    const a = await s.call('GET', '/tokens/validate', { bearer: token });
    expect(a.status).toBe(401);
    expect(a.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});

describe('business endpoints (§4.4)', () => {
  it.each([
    ['/v1/evaluation', ['evaluation_id', 'decision', 'score']],
    ['/v1/ach_transactions', ['transactions', 'count']],
  ])('POST %s with a token and a JSON object answers 200 JSON', async (path, keys) => {
    const { token } = tokenOf(await s.issue());
    const a = await s.call('POST', path, { bearer: token, json: { applicant: 'x' } });
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toBe('application/json');
    expect(Object.keys(a.json as object).sort()).toEqual([...keys].sort());
  });

  it.each([['/v1/evaluation'], ['/v1/ach_transactions']])(
    '%s rejects missing, unknown and expired tokens with 401',
    async (path) => {
      expect((await s.call('POST', path, { json: {} })).status).toBe(401);
      expect((await s.call('POST', path, { json: {}, bearer: 'nope' })).status).toBe(401);
      s.clock.set(T0 + 2 * 60 * 60_000);
      const { token, expiresAt } = tokenOf(await s.issue());
      s.clock.set(expiresAt * 1000);
      const a = await s.call('POST', path, { json: {}, bearer: token });
      expect(a.status).toBe(401);
      expect(a.json).toEqual(UNAUTHORIZED);
    },
  );

  it.each([['not json'], ['[]'], ['null'], ['']])('answers 400 for the body %j', async (body) => {
    const { token } = tokenOf(await s.issue());
    const a = await s.call('POST', '/v1/evaluation', {
      bearer: token,
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ error: 'invalid_request' });
  });

  it('answers other methods with 405', async () => {
    expect((await s.call('GET', '/v1/evaluation')).status).toBe(405);
  });
});

describe('everything else', () => {
  it.each(['/', '/v1/other', '/tokens/', '/__proto__', '/v2/evaluation'])('answers 404 JSON for %s', async (path) => {
    const a = await s.call('POST', path);
    expect(a.status).toBe(404);
    expect(a.json).toEqual({ error: 'not_found' });
  });

  it('ignores the query string when routing', async () => {
    expect((await s.call('POST', '/tokens/health_check?x=1')).status).toBe(200);
  });

  it('answers 413 to a body over 64 KiB and stays up', async () => {
    const a = await s.call('POST', '/tokens', { body: 'x'.repeat(70 * 1024) });
    expect(a.status).toBe(413);
    expect((await s.call('POST', '/tokens/health_check')).status).toBe(200);
  });
});
