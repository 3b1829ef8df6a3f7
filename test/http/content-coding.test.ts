// Compressed answers: the emulator's compression profile codes what the request's Accept-Encoding
// allows, the harness decodes it wherever it reads a body, the body cap holds for the decoded
// size too (a zip bomb is one clear error, not a flood), and the redactor sees the decoded text.

import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { chooseCoding } from '../../src/http/content-coding.js';
import { readCapped } from '../../src/http/read-answer.js';
import { Redactor } from '../../src/http/redact.js';
import { DEFAULT_BODY_CAP_BYTES, ServiceClient } from '../../src/http/service-client.js';

async function* once(body: Buffer) {
  yield body;
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('reading a coded body', () => {
  const text = JSON.stringify({ token: 'a'.repeat(40), expires_at: 1 });
  it.each([
    ['gzip', gzipSync(text)],
    ['br', brotliCompressSync(text)],
    ['deflate', deflateSync(text)],
    // Bare deflate data under `deflate`, as some servers send it and browsers accept.
    ['deflate', deflateRawSync(text)],
    ['gzip, br', brotliCompressSync(gzipSync(text))],
    ['identity', Buffer.from(text)],
  ])('decodes Content-Encoding: %s', async (coding, body) => {
    expect(await readCapped(once(body), 1024, coding)).toEqual({ text, truncated: false });
  });

  it('refuses a body that inflates past the cap, at any step, without inflating it all', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const started = performance.now();
    await expect(readCapped(once(bomb), DEFAULT_BODY_CAP_BYTES, 'gzip')).rejects.toThrow(
      `the gzip-coded answer decodes to more than the ${DEFAULT_BODY_CAP_BYTES}-byte body cap; not read`,
    );
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('which coding a request allows (the compression profile)', () => {
  const prefer = ['gzip', 'br', 'deflate'] as const;
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br', 'gzip'],
    ['br', 'br'],
    ['deflate;q=0.5, gzip;q=0', 'deflate'],
    ['*', 'gzip'],
    ['identity', undefined],
    ['gzip;q=0, *;q=0', undefined],
    ['GZIP;Q=1', 'gzip'],
  ])('Accept-Encoding %j → %s', (accept, chosen) => {
    expect(chooseCoding(accept, prefer)).toBe(chosen);
  });
});

describe('the compression profile, read by the harness', () => {
  async function emulator(profiles: Array<'compression'>): Promise<{ emu: Emulator; client: ServiceClient }> {
    const emu = await createEmulator({ port: 0, profiles });
    const client = new ServiceClient(
      { environment: 'sandbox', baseUrl: emu.url, credentials: emu.credentials, caPem: emu.caPem },
      { redactor: new Redactor(), connections: 2 },
    );
    closers.push(
      () => emu.close(),
      () => client.close(),
    );
    return { emu, client };
  }

  it.each([
    // What the harness offers by default, and what other clients offer.
    [undefined, 'gzip'],
    ['br', 'br'],
    ['deflate', 'deflate'],
    ['identity', undefined],
  ])('Accept-Encoding %s: the answer comes %s-coded, and reads as JSON with its token', async (accept, coding) => {
    const { client } = await emulator(['compression']);
    const ex = await client.issueToken(
      undefined,
      accept === undefined ? {} : { headers: { 'accept-encoding': accept } },
    );
    expect({
      status: ex.status,
      coding: ex.headers['content-encoding'],
      vary: ex.headers['vary'],
      token: typeof ex.issued?.token,
    }).toEqual({ status: 200, coding, vary: 'Accept-Encoding', token: 'string' });
    expect(client.transportSeen().codings).toEqual({ [coding ?? 'identity']: 1 });
  });

  it('leaves answers alone without the profile', async () => {
    const { client } = await emulator([]);
    const ex = await client.healthCheck();
    expect({ coding: ex.headers['content-encoding'], vary: ex.headers['vary'] }).toEqual({
      coding: undefined,
      vary: undefined,
    });
  });
});

describe('a service whose coded answers misbehave', () => {
  /** A plain HTTP server answering every request with this body and these headers. */
  async function serving(body: Buffer, headers: Record<string, string>): Promise<ServiceClient> {
    const server: Server = createServer((req, res) => {
      req.resume();
      // The second request of each test is answered plainly: the client must still be usable.
      if (req.headers['x-plain']) return res.end('alive');
      res.writeHead(200, { 'content-type': 'application/json', ...headers, 'content-length': body.length });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const client = new ServiceClient(
      {
        environment: 'sandbox',
        baseUrl: `http://127.0.0.1:${port}`,
        credentials: { clientId: 'cid', clientSecret: 's3cr3t-value-for-test' },
      },
      { redactor: new Redactor(), connections: 1 },
    );
    closers.push(
      () => new Promise((r) => server.close(r)),
      () => client.close(),
    );
    return client;
  }

  it.each([
    [
      'a zip bomb (64 MiB of zeros in ~64 KiB of gzip)',
      gzipSync(Buffer.alloc(60 * 1024 * 1024)),
      'gzip',
      'the gzip-coded answer decodes to more than the 65536-byte body cap; not read',
    ],
    [
      'a brotli bomb',
      brotliCompressSync(Buffer.alloc(60 * 1024 * 1024)),
      'br',
      'the br-coded answer decodes to more than the 65536-byte body cap; not read',
    ],
    [
      'a coded body larger than the cap on the wire',
      gzipSync(randomBytes(100 * 1024)),
      'gzip',
      'the gzip-coded answer is larger than the 65536-byte body cap; not read',
    ],
    [
      'a body that is not what its coding says',
      Buffer.from('{"not":"gzip"}'),
      'gzip',
      'the gzip-coded answer does not decode (Z_DATA_ERROR)',
    ],
    [
      'a coding that was not offered',
      Buffer.from('whatever'),
      'zstd',
      'the answer is coded zstd, which was not offered (Accept-Encoding: gzip, deflate, br)',
    ],
  ])('%s is one clear error naming the request, and the client goes on', async (_, body, coding, message) => {
    const client = await serving(body, { 'content-encoding': coding });
    await expect(client.healthCheck()).rejects.toThrow(`POST /tokens/health_check: ${message}`);
    expect((await client.healthCheck({ headers: { 'x-plain': '1' } })).text).toBe('alive');
  });

  it('sees a client secret echoed inside a compressed answer (the redactor reads decoded text)', async () => {
    const client = await serving(gzipSync(JSON.stringify({ echoed: 's3cr3t-value-for-test' })), {
      'content-encoding': 'gzip',
    });
    const ex = await client.healthCheck();
    expect(ex.echoesSecret).toBe(true);
    expect(client.secretEchoes()).toEqual(['POST /tokens/health_check']);
    expect(client.quote(ex)).not.toContain('s3cr3t-value-for-test');
  });
});
