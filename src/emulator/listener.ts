// One HTTPS listener: TLS settings from the behaviour, keep-alive, capped bodies, and a close()
// that does not wait for idle keep-alive clients. With `plainHttp` (a fault) a plain TCP front
// sniffs the first byte and hands the socket to the TLS or the plain HTTP server. The transport
// may add HTTP/2 (offered by ALPN beside HTTP/1.1, one handler for both) and compressed answers.

import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Reply, RequestInfo, TlsSettings } from './types.js';
import { internalError, payloadTooLarge } from './replies.js';
import type { Transport } from './transport.js';
import { chooseCoding, encodeBody } from '../http/content-coding.js';
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

/** HTTP/1.1 or, on an HTTP/2 listener, either: node:http2's compatibility API mirrors node:http's. */
type Request = IncomingMessage | Http2ServerRequest;
type Response = ServerResponse | Http2ServerResponse;

type Body = { kind: 'ok'; body: Buffer } | { kind: 'too-large' } | { kind: 'gone' };

/** Reads at most BODY_CAP_BYTES; stops collecting (but not the socket) past that. */
function readBody(req: Request): Promise<Body> {
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

/** What the request allows and the transport offers: the answer coded, when one coding fits both. */
function coded(
  reply: Reply,
  acceptEncoding: string | undefined,
  transport: Transport,
): { headers: Record<string, string>; body: Buffer } {
  const body = Buffer.from(reply.body);
  if (transport.compression.length === 0) return { headers: reply.headers, body };
  // The answer depends on Accept-Encoding whether or not this one is coded, so caches must know.
  const headers = {
    ...reply.headers,
    vary: reply.headers['vary'] ? `${reply.headers['vary']}, Accept-Encoding` : 'Accept-Encoding',
  };
  const coding = body.length > 0 ? chooseCoding(acceptEncoding, transport.compression) : undefined;
  if (coding === undefined) return { headers, body };
  return { headers: { ...headers, 'content-encoding': coding }, body: encodeBody(coding, body) };
}

async function send(
  req: Request,
  res: Response,
  reply: Reply,
  transport: Transport,
  policy: ConnectionPolicy,
): Promise<void> {
  await policy.delay();
  const gone = 'stream' in res ? res.stream.destroyed : res.destroyed;
  if (res.headersSent || gone) return;
  const { headers, body } = coded(reply, req.headers['accept-encoding'], transport);
  try {
    res.writeHead(reply.status, { ...headers, ...policy.headers, 'content-length': body.length });
    res.end(body);
  } catch {
    // A stream reset between the check above and the write (HTTP/2 throws where HTTP/1.1 ignores).
  }
}

/** HTTP/2's :method, :path, :scheme and :authority are in RequestInfo already (method, path): the headers read the same over both versions. */
const withoutPseudoHeaders = (headers: Http2ServerRequest['headers']): IncomingMessage['headers'] =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')));

function requestListener(handler: Handler, transport: Transport, policy: ConnectionPolicy) {
  const serve = async (req: Request, res: Response): Promise<void> => {
    // The close-after-answer and idle-close habits are HTTP/1.1 connections'; an HTTP/2 session has its own timeout.
    if (!('stream' in req) && !('stream' in res)) policy.onRequest(req, res);
    const body = await readBody(req);
    if (body.kind === 'gone') return;
    if (body.kind === 'too-large') return send(req, res, payloadTooLarge(), transport, policy);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    await policy.turn();
    await send(
      req,
      res,
      await handler({
        method: req.method ?? 'GET',
        path: query === -1 ? url : url.slice(0, query),
        query: query === -1 ? '' : url.slice(query + 1),
        headers: 'stream' in req ? withoutPseudoHeaders(req.headers) : req.headers,
        remoteAddress: req.socket.remoteAddress ?? 'unknown',
        body: body.body,
        httpVersion: req.httpVersion,
      }),
      transport,
      policy,
    );
  };
  // A bug in a handler answers 500 on that request; it never reaches the process.
  return (req: Request, res: Response) => {
    serve(req, res).catch(() => send(req, res, internalError(), transport, policy).catch(() => undefined));
  };
}

/** The timeouts of an HTTP/1.1 server; an HTTP/2 server applies them to its HTTP/1.1 connections. */
interface Http1Timeouts {
  keepAliveTimeout?: number;
  headersTimeout: number;
  requestTimeout: number;
}

function tune(server: Http1Timeouts, transport: Transport): void {
  tuneKeepAlive(server, transport);
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
}

/**
 * The TLS server: HTTP/1.1 only, or HTTP/2 offered by ALPN beside it, with the same TLS settings.
 * node:http2 loads only for the latter: it is ~25 ms of the emulator thread's start, which the
 * CLI's first request waits on, and most emulators never offer HTTP/2.
 */
async function tlsServer(options: ListenerOptions, policy: ConnectionPolicy) {
  const onRequest = requestListener(options.handler, options.transport, policy);
  const tls = { cert: options.certPem, key: options.keyPem, ...options.tls, honorCipherOrder: true };
  if (!options.transport.http2) {
    const https = createHttpsServer(tls, onRequest);
    tune(https, options.transport);
    return { server: https, closeAll: () => https.closeAllConnections() };
  }
  const { createSecureServer } = await import('node:http2');
  const h2 = createSecureServer({ ...tls, allowHTTP1: true }, onRequest);
  // close() ends every session, idle or with streams open, as it ends idle keep-alive connections.
  const sessions = new Set<Http2Session>();
  tune(h2 as unknown as Http1Timeouts, options.transport);
  h2.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    // An idle HTTP/2 connection goes like an idle keep-alive one: GOAWAY, open streams finish first.
    session.setTimeout(options.transport.keepAliveMs, () => session.close());
    // A client that resets the connection must not become an uncaught error.
    session.on('error', () => session.destroy());
  });
  return { server: h2, closeAll: () => sessions.forEach((s) => s.destroy()) };
}

export async function listen(options: ListenerOptions): Promise<Listener> {
  const policy = connectionPolicy(options.transport);
  const { server: https, closeAll } = await tlsServer(options, policy);
  const plain = options.plainHttp
    ? createHttpServer(requestListener(options.handler, options.transport, policy))
    : undefined;
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
        closeAll();
        plain?.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
