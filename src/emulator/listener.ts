// One HTTPS listener: TLS settings from the behaviour, keep-alive, capped bodies, and a close()
// that does not wait for idle keep-alive clients. With `plainHttp` (a fault) a plain TCP front
// sniffs the first byte and hands the socket to the TLS or the plain HTTP server.

import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Reply, RequestInfo, TlsSettings } from './types.js';
import { internalError, payloadTooLarge } from './replies.js';
import type { Transport } from './transport.js';
import { connectionPolicy, tuneKeepAlive, type ConnectionPolicy } from './connection-policy.js';

export const BODY_CAP_BYTES = 64 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
/** The first byte of a TLS record carrying a handshake. */
const TLS_HANDSHAKE = 0x16;

export type Handler = (request: RequestInfo) => Promise<Reply>;

export interface ListenerOptions {
  host: string;
  port: number;
  tls: TlsSettings;
  plainHttp: boolean;
  /** Keep-alive and the rest a gateway decides (transport.ts). */
  transport: Transport;
  certPem: string;
  keyPem: string;
  handler: Handler;
  /** Sees the first bytes of every connection before TLS does (`ces-harness client` reads the ClientHello). */
  peek?: (first: Buffer) => void;
}

export interface Listener {
  port: number;
  close(): Promise<void>;
}

type Body = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'gone' };

/** Reads at most BODY_CAP_BYTES; stops collecting (but not the socket) past that. */
function readBody(req: IncomingMessage): Promise<Body> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_CAP_BYTES) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_CAP_BYTES) {
        req.removeAllListeners('data');
        resolve({ kind: 'too-large' });
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve({ kind: 'ok', body: Buffer.concat(chunks) }));
    // A client that goes away mid-body gets no answer; 'close' after 'end' is a no-op here.
    req.on('error', () => resolve({ kind: 'gone' }));
    req.on('close', () => resolve({ kind: 'gone' }));
  });
}

function requestListener(handler: Handler, policy: ConnectionPolicy) {
  const send = async (res: ServerResponse, reply: Reply): Promise<void> => {
    await policy.delay();
    if (res.headersSent || res.destroyed) return;
    res.writeHead(reply.status, { ...reply.headers, ...policy.headers, 'content-length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  };
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    policy.onRequest(req, res);
    const body = await readBody(req);
    if (body.kind === 'gone') return;
    if (body.kind === 'too-large') return send(res, payloadTooLarge());
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    await send(
      res,
      await handler({
        method: req.method ?? 'GET',
        path: query === -1 ? url : url.slice(0, query),
        query: query === -1 ? '' : url.slice(query + 1),
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress ?? 'unknown',
        body: body.body,
      }),
    );
  };
  // A bug in a handler answers 500 on that request; it never reaches the process.
  return (req: IncomingMessage, res: ServerResponse) => {
    serve(req, res).catch(() => send(res, internalError()).catch(() => undefined));
  };
}

function tune(server: HttpServer, transport: Transport): void {
  tuneKeepAlive(server, transport);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
}

export async function listen(options: ListenerOptions): Promise<Listener> {
  const onRequest = requestListener(options.handler, connectionPolicy(options.transport));
  const https = createHttpsServer(
    { cert: options.certPem, key: options.keyPem, ...options.tls, honorCipherOrder: true },
    onRequest,
  );
  tune(https, options.transport);
  const plain = options.plainHttp ? createHttpServer(onRequest) : undefined;
  if (plain) tune(plain, options.transport);

  // Every raw socket, so close() can end connections that are idle, mid-handshake or never spoke.
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  let front: NetServer;
  const peek = options.peek;
  if (plain || peek) {
    front = createNetServer((socket) => {
      track(socket);
      // Until a server owns the socket, a reset by the client must not become an uncaught error.
      socket.on('error', () => socket.destroy());
      socket.once('data', (first: Buffer) => {
        socket.pause();
        socket.unshift(first);
        peek?.(first);
        (first[0] === TLS_HANDSHAKE || !plain ? https : plain).emit('connection', socket);
        process.nextTick(() => socket.resume());
      });
    });
  } else {
    front = https;
    https.on('connection', track);
  }

  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen({ host: options.host, port: options.port }, () => {
      front.off('error', reject);
      resolve();
    });
  });
  // Once listening, a server error (say EMFILE on accept) affects one connection; without a
  // listener Node would throw it and end the process, and with it every other connection.
  front.on('error', () => undefined);

  return {
    port: (front.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        https.closeAllConnections();
        plain?.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
