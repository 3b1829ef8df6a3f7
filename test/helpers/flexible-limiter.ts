// rate-limiter-flexible as real ground truth for a fixed window: a Node HTTPS front (TLS 1.3, the
// three suites of §5.8, the emulator's own certificate, so the harness trusts it through the
// emulator's CA) that limits with the package's RateLimiterMemory, the way an express or fastify
// middleware deploys it, and forwards every request it lets through to the emulator (whose own
// limiter is off) with undici, under a timeout and a body cap.
//
// RateLimiterMemory's window is not on a wall-clock lattice: a key's record expires `duration`
// after the request that created it, and the next request after that starts a new window. So after
// an idle gap the window opens at the client's first request, wherever that falls; this is the
// real-world behaviour the probe must cope with (express-rate-limit's MemoryStore, by contrast,
// resets every key on one fixed timer).
//
// The limiter runs in the test's own process (it is a library, not a server): stop() closes the
// server and the connection pool to the emulator.

import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Agent, request } from 'undici';
import { TLS13_SUITES } from '../../src/emulator/tls-suites.js';
import { flattenHeaders, readCapped } from '../../src/http/read-answer.js';

export interface FlexibleLimit {
  /** Requests per window (RateLimiterMemory's `points`). */
  points: number;
  /** Window length in seconds (RateLimiterMemory's `duration`). */
  duration: number;
}

export interface FlexibleOptions {
  /** The emulator's https URL, e.g. https://127.0.0.1:40123 (its own limiter should be off). */
  upstream: string;
  /** Folder holding the emulator's ca.pem, server.pem and server-key.pem (its tlsDir option). */
  tlsDir: string;
  limit: FlexibleLimit;
}

export interface RunningFlexible {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Each forwarded request and its answer: a stalled emulator must not hang the front. */
const UPSTREAM_TIMEOUT_MS = 10_000;
/** Request and answer bodies of the token interface are small; anything larger is cut off. */
const BODY_CAP_BYTES = 64 * 1024;
/** Headers that describe one hop's connection, not the message (RFC 9110 §7.6.1), plus host. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
  'content-length',
]);

export async function startFlexibleLimiter(opts: FlexibleOptions): Promise<RunningFlexible> {
  const [cert, key, ca] = await Promise.all(
    ['server.pem', 'server-key.pem', 'ca.pem'].map((f) => readFile(join(opts.tlsDir, f), 'utf8')),
  );
  const limiter = new RateLimiterMemory({ points: opts.limit.points, duration: opts.limit.duration });
  // The emulator's certificate names localhost besides the loopback addresses.
  const upstream = new Agent({ connect: { ca, servername: 'localhost', minVersion: 'TLSv1.3' }, connections: 16 });
  const server = createServer(
    { cert, key, minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', ciphers: TLS13_SUITES.join(':') },
    (req, res) => {
      handle(req, res, limiter, opts.upstream, upstream).catch(() => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end('{"error":"bad_gateway"}');
      });
    },
  );
  // A client that stalls mid-request is cut off rather than held forever.
  server.requestTimeout = UPSTREAM_TIMEOUT_MS;
  await listen(server);
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }).then(() => upstream.close()));
  return { url: `https://127.0.0.1:${port}`, port, stop };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  limiter: RateLimiterMemory,
  upstreamUrl: string,
  upstream: Agent,
): Promise<void> {
  // Keyed by client address, as a typical deployment keys it (express's req.ip): every client of
  // one machine shares the limit, so the probe reads the scope as shared.
  const key = req.socket.remoteAddress ?? 'unknown';
  try {
    await limiter.consume(key);
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    // What express-style middleware answers: the seconds until the key's window ends, rounded up.
    await readCapped(req, BODY_CAP_BYTES);
    res.writeHead(429, {
      'content-type': 'application/json',
      'retry-after': String(Math.ceil(refusal.msBeforeNext / 1000)),
    });
    res.end('{"error":"rate_limit_exceeded"}');
    return;
  }
  const { text: body } = await readCapped(req, BODY_CAP_BYTES);
  const answer = await request(new URL(req.url ?? '/', upstreamUrl), {
    method: (req.method ?? 'GET') as 'GET',
    headers: endToEnd(req.headers),
    ...(body.length > 0 ? { body } : {}),
    dispatcher: upstream,
    headersTimeout: UPSTREAM_TIMEOUT_MS,
    bodyTimeout: UPSTREAM_TIMEOUT_MS,
  });
  const { text: out } = await readCapped(answer.body, BODY_CAP_BYTES);
  res.writeHead(answer.statusCode, endToEnd(answer.headers));
  res.end(out);
}

/** A message's headers without those of one hop's connection, one string each. */
function endToEnd(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(flattenHeaders(headers)).filter(([name]) => !HOP_BY_HOP.has(name)));
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}
