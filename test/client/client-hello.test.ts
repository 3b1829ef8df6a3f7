// The ClientHello reader against real ClientHellos: Node's TLS client offering what it is told,
// captured by a plain TCP server on loopback before any TLS happens.

import { createServer, type AddressInfo } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { readClientHello } from '../../src/client/client-hello.js';

/** The first bytes a TLS client with `options` sends; the handshake is then cut off. */
async function helloOf(options: ConnectionOptions): Promise<Buffer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const first = new Promise<Buffer>((resolve) =>
      server.once('connection', (socket) => socket.once('data', (d: Buffer) => (resolve(d), socket.destroy()))),
    );
    const client = connect({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      servername: 'localhost',
      ...options,
    });
    client.on('error', () => undefined);
    const bytes = await first;
    client.destroy();
    return bytes;
  } finally {
    server.close();
  }
}

describe('readClientHello', () => {
  it('reads TLS 1.3 and its suites from supported_versions and the suite list', async () => {
    const offered = readClientHello(
      await helloOf({ minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256' }),
    );
    expect(offered).toMatchObject({ tls: true, versions: ['TLSv1.3'] });
    expect(offered.suites).toEqual(expect.arrayContaining(['TLS_AES_128_GCM_SHA256', 'TLS_CHACHA20_POLY1305_SHA256']));
    expect(offered.suites).not.toContain('TLS_AES_256_GCM_SHA384');
  });

  it('sees a client that offers TLS 1.2 only', async () => {
    const offered = readClientHello(await helloOf({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }));
    expect(offered.tls).toBe(true);
    expect(offered.versions).toEqual(['TLSv1.2']);
    expect(offered.suites.some((s) => s.startsWith('TLS_AES'))).toBe(false);
  });

  it('lists 1.3 and 1.2 for a client that offers both', async () => {
    expect(readClientHello(await helloOf({ minVersion: 'TLSv1.2' })).versions).toEqual(['TLSv1.3', 'TLSv1.2']);
  });

  it('says plain HTTP and cut-short bytes are no readable ClientHello', async () => {
    expect(readClientHello(Buffer.from('POST /tokens HTTP/1.1\r\n\r\n')).tls).toBe(false);
    const real = await helloOf({ minVersion: 'TLSv1.3' });
    expect(readClientHello(real.subarray(0, 60)).tls).toBe(false);
  });
});
