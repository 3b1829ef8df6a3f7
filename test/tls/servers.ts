// Real servers on 127.0.0.1 port 0 for the TLS tests: one conformant to §5.8 and the deviant ones
// each check must catch. Every server is closed by the returned close(), connections included.

import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { ALLOWED_SUITES } from '../../src/tls/cases.js';
import type { TestPki } from './pki.js';

export interface Started {
  port: number;
  /** https://127.0.0.1:port (or http:// for a plain server). */
  url: string;
  close(): Promise<void>;
}

/** §5.8 as a server: TLS 1.3 only, exactly the three suites. */
export const CONFORMANT: tls.TlsOptions = {
  minVersion: 'TLSv1.3',
  maxVersion: 'TLSv1.3',
  ciphers: ALLOWED_SUITES.join(':'),
};

async function listen(server: net.Server, scheme: 'http' | 'https'): Promise<Started> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `${scheme}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const alive = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.setHeader('content-type', 'text/plain');
  res.end(`service is alive ${new Date().toISOString()}`);
};

/** An HTTPS server with the given TLS settings and certificate. */
export function startTls(pki: Pick<TestPki, 'keyPem' | 'certPem'>, options: tls.TlsOptions): Promise<Started> {
  const server = https.createServer({ key: pki.keyPem, cert: pki.certPem, ...options }, alive);
  return listen(server, 'https');
}

/** Plain HTTP only: what §5.8 forbids. */
export function startPlainHttp(): Promise<Started> {
  return listen(http.createServer(alive), 'http');
}

/** Plain HTTP that answers everything 400, like nginx's "plain HTTP request was sent to HTTPS port". */
export function startPlainHttp400(): Promise<Started> {
  return listen(
    http.createServer((_req, res) => {
      res.statusCode = 400;
      res.end('The plain HTTP request was sent to HTTPS port');
    }),
    'http',
  );
}

/** TLS and plain HTTP on one port: TLS-conformant, but plain text is served too. */
export async function startDual(pki: TestPki): Promise<Started> {
  const secure = await startTls(pki, CONFORMANT);
  const plain = await startPlainHttp();
  // Each connection is relayed to one of the two by its first byte. Relayed over loopback TCP
  // rather than handed over with emit('connection'): node's TLS and HTTP servers read the socket's
  // handle natively and would miss the byte already read from it.
  const front = net.createServer((socket) => {
    socket.once('data', (first: Buffer) => {
      // 0x16 opens a TLS handshake record; anything else is taken for plain HTTP.
      const upstream = net.connect(first[0] === 0x16 ? secure.port : plain.port, '127.0.0.1');
      upstream.write(first);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
  });
  const started = await listen(front, 'https');
  return {
    ...started,
    close: async () => {
      await Promise.all([started.close(), secure.close(), plain.close()]);
    },
  };
}

/** Accepts TCP and never says a word: for the timeouts. */
export function startSilent(): Promise<Started> {
  return listen(
    net.createServer(() => {}),
    'https',
  );
}

/** TCP that treats each connection with `onSocket` (reset it, close it): no TLS at all. */
export function startTcp(onSocket: (socket: net.Socket) => void): Promise<Started> {
  return listen(net.createServer(onSocket), 'https');
}

/** A port nothing listens on (taken and released). */
export async function closedPort(): Promise<number> {
  const s = await listen(net.createServer(), 'https');
  await s.close();
  return s.port;
}

/**
 * A TCP relay to `port` that holds each connection `delayMs` before passing anything on: a target
 * whose every handshake takes that much longer, as on a machine (or a path) that slow.
 */
export async function startDelayedRelay(port: number, delayMs: number): Promise<Started> {
  const server = net.createServer((client) => {
    client.pause();
    client.on('error', () => undefined);
    const timer = setTimeout(() => {
      const upstream = net.connect(port, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    }, delayMs);
    client.once('close', () => clearTimeout(timer));
  });
  const started = await listen(server, 'https');
  return started;
}
