// Raw transport probes: a node:tls handshake with a chosen version range and suite list, and a
// plain-text HTTP request to the TLS port. Both end on their own within a bounded time.

import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { connect as netConnect } from 'node:net';

export type Handshake = { ok: true; protocol: string | null; cipher: string } | { ok: false; error: string };

const PROBE_TIMEOUT_MS = 3_000;

/** Dials 127.0.0.1 and, unless options name another, verifies the certificate for "localhost". */
export function handshake(port: number, ca: string, options: Partial<ConnectionOptions>): Promise<Handshake> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ...options });
    const done = (result: Handshake) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done({ ok: false, error: 'timeout' }));
    socket.once('secureConnect', () =>
      done({ ok: true, protocol: socket.getProtocol(), cipher: socket.getCipher().standardName }),
    );
    socket.once('error', (e) => done({ ok: false, error: e.message }));
  });
}

/** What a plain HTTP request to the port gets back, as text (empty when the port just hangs up). */
export function plainHttp(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, done);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One HTTP response head is all the probe needs.
      if (Buffer.concat(chunks).includes('\r\n\r\n')) done();
    });
    socket.once('close', done);
    socket.once('error', done);
    socket.once('connect', () =>
      socket.write('POST /tokens/health_check HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n'),
    );
  });
}

export const portOf = (url: string): number => Number(new URL(url).port);
