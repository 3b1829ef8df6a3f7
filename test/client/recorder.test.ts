// The recorder keeps what the checks need and nothing secret: the secret's places (in any of its
// encodings), tokens as fingerprints, bodies as shapes, and which bearer tokens it issued.

import { describe, expect, it } from 'vitest';
import { Recorder } from '../../src/client/recorder.js';
import type { Observed } from '../../src/emulator/index.js';

const SECRET = 's3cr3t/value+with=signs';
const ID = 'ces-sandbox-abc';

const observed = (req: Partial<Observed['req']>, reply: Partial<Observed['reply']> = {}, atMs = 1_000): Observed => ({
  req: {
    method: 'POST',
    path: '/v1/evaluation',
    query: '',
    headers: {},
    remoteAddress: '127.0.0.1',
    body: Buffer.alloc(0),
    ...req,
  },
  reply: { status: 200, headers: {}, body: '{}', ...reply },
  arrivedMs: atMs,
  answeredMs: atMs + 2,
});

describe('Recorder', () => {
  it('finds the secret in the path, the query (percent-encoded) and any header (Basic included), and hides it', () => {
    const r = new Recorder(0, SECRET, ID);
    const basic = Buffer.from(`${ID}:${SECRET}`).toString('base64');
    const rec = r.add(
      observed({
        path: `/v1/evaluation/${SECRET}`,
        query: `secret=${encodeURIComponent(SECRET)}`,
        headers: { 'x-key': SECRET, authorization: `Basic ${basic}` },
      }),
    );
    expect(rec.secretIn).toEqual(['the URL path', 'the query string', 'header x-key', 'header authorization']);
    expect(rec.queryNames).toEqual(['secret']);
    expect(JSON.stringify(rec.headers)).not.toContain(SECRET);
    expect(JSON.stringify(rec.headers)).not.toContain(basic);
  });

  it('learns issued tokens from POST /tokens answers and judges bearer tokens by them, as fingerprints', () => {
    const learned: string[] = [];
    const r = new Recorder(0, SECRET, ID, (t) => learned.push(t));
    const body = Buffer.from(JSON.stringify({ token: { client_id: ID, client_secret: SECRET } }));
    const fetch = r.add(
      observed(
        { path: '/tokens', body, headers: { 'content-type': 'application/json' } },
        { body: JSON.stringify({ token: 'tok-value-123456', expires_at: 90, token_type: 'Bearer' }) },
        500,
      ),
    );
    expect(fetch.bodyShape).toBe('{"token":{"client_id":string,"client_secret":string}}');
    expect(fetch.issued).toEqual({ token: expect.stringMatching(/^tk_[0-9a-f]{8}$/), expiresMs: 90_000 });
    expect(fetch.secretIn).toEqual([]);
    expect(learned).toEqual(['tok-value-123456']);
    const call = r.add(observed({ headers: { authorization: 'Bearer tok-value-123456' } }));
    expect(call.bearer).toEqual({ scheme: 'Bearer', token: fetch.issued!.token, fetchedMs: 500, expiresMs: 90_000 });
    expect(call.headers['authorization']).toBe(`Bearer ${fetch.issued!.token}`);
    const stranger = r.add(observed({ headers: { authorization: 'Bearer made-up' } }));
    expect(stranger.bearer.expiresMs).toBeUndefined();
    expect(JSON.stringify(r.requests)).not.toContain('tok-value-123456');
  });
});
