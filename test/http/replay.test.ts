// A connection the server closes while idle, just as the client sends on it (replay.ts): a
// request that is safe to replay goes out once more on a new connection and the caller sees only
// the answer; one that is not fails as it did; a new connection closed before any answer is never
// a reason to replay. The server answers the first request of every connection and closes the
// connection without a byte when a second one arrives, which is that race made certain.

import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-https.js';
import { createTestPki } from '../tls/pki.js';

const pki = createTestPki();
let server: Server;
let baseUrl: string;
/** Requests that reached the server, answered or not. */
let arrived: string[] = [];
/** When set, a connection's first request is closed on too (a new connection that dies). */
let closeFirst = false;

beforeAll(async () => {
  const served = new WeakMap<Socket, number>();
  server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
    req.resume();
    arrived.push(`${req.method} ${req.url}`);
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > 1 || closeFirst) return void req.socket.end();
    const body =
      req.url === '/tokens'
        ? JSON.stringify({ token: 'tk-replay-test-token', expires_at: 2e9, token_type: 'Bearer' })
        : '{"valid":true}';
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  baseUrl = await listenLoopback(server);
});
afterAll(() => closeLoopback(server));

const newClient = () =>
  new ServiceClient(
    {
      environment: 'sandbox',
      baseUrl,
      credentials: { clientId: 'id', clientSecret: 'secret-value' },
      caPem: pki.caPem,
    },
    { redactor: new Redactor(), timeoutMs: 2_000, connections: 1 },
  );

const business = { method: 'POST', body: { amount: 1 } };

describe('a pooled connection closed by the server just as a request goes out', () => {
  it.each([
    {
      name: 'POST /tokens (§4.1: the same token again)',
      call: (c: ServiceClient) => c.issueToken(),
      request: 'POST /tokens',
    },
    {
      name: 'GET /tokens/validate (a safe method)',
      call: (c: ServiceClient) => c.validate('t', 'GET'),
      request: 'GET /tokens/validate',
    },
    {
      name: 'POST /tokens/validate (reads only)',
      call: (c: ServiceClient) => c.validate('t', 'POST'),
      request: 'POST /tokens/validate',
    },
    {
      name: 'a business call (it carries an Idempotency-Key)',
      call: (c: ServiceClient) => c.business('evaluation', business, 't'),
      request: 'POST /v1/evaluation',
    },
  ])('$name is sent once more on a new connection', async ({ call, request }) => {
    const client = newClient();
    try {
      await client.healthCheck();
      arrived = [];
      await expect(call(client)).resolves.toMatchObject({ status: 200 });
      expect(arrived).toEqual([request, request]);
    } finally {
      await client.close();
    }
  });

  it('a POST that is not known to be replayable fails, sent once', async () => {
    const client = newClient();
    try {
      await client.healthCheck();
      arrived = [];
      await expect(client.send('POST', '/v1/evaluation', { json: {} })).rejects.toMatchObject({
        code: 'UND_ERR_SOCKET',
      });
      expect(arrived).toEqual(['POST /v1/evaluation']);
    } finally {
      await client.close();
    }
  });

  it('a new connection closed before any answer is not replayed, even for POST /tokens', async () => {
    const client = newClient();
    closeFirst = true;
    arrived = [];
    try {
      await expect(client.issueToken()).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
      expect(arrived).toEqual(['POST /tokens']);
    } finally {
      closeFirst = false;
      await client.close();
    }
  });
});

// A server stalled past its idle timeout closes every connection idle that long in one go (profile
// idle-close under `run`'s load: `run` failed validate.garbage-token-401 and missing-token-401 with
// "other side closed", CI land71 and land84). The replay then goes on the first free pooled
// connection, and that one can be among those closed: here the connection that answered the health
// check just before. The arrivals are the test's to answer or close, so the race is certain.
describe('a replay that meets another pooled connection the server closed', () => {
  interface Arrival {
    line: string;
    socket: Socket;
    answer: () => void;
  }
  let stalled: Server;
  let stalledUrl: string;
  const waiting: ((a: Arrival) => void)[] = [];
  const queued: Arrival[] = [];
  const nextArrival = () =>
    new Promise<Arrival>((take) => {
      const a = queued.shift();
      if (a) take(a);
      else waiting.push(take);
    });

  beforeAll(async () => {
    stalled = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
      req.resume();
      const answer = () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(req.url === '/tokens/health_check' ? '{}' : '{"valid":true}');
      const a: Arrival = { line: `${req.method} ${req.url}`, socket: req.socket, answer };
      const take = waiting.shift();
      if (take) take(a);
      else queued.push(a);
    });
    stalled.keepAliveTimeout = 60_000;
    stalledUrl = await listenLoopback(stalled);
  });
  afterAll(() => closeLoopback(stalled));

  it('GET /tokens/validate is sent again, on a new connection, until one answers', async () => {
    const client = new ServiceClient(
      {
        environment: 'sandbox',
        baseUrl: stalledUrl,
        credentials: { clientId: 'id', clientSecret: 'secret-value' },
        caPem: pki.caPem,
      },
      { redactor: new Redactor(), timeoutMs: 2_000, connections: 2 },
    );
    try {
      // Two pooled connections, A and B: two health checks answered together.
      const warm = [client.healthCheck(), client.healthCheck()];
      const first = [await nextArrival(), await nextArrival()];
      first.forEach((a) => a.answer());
      await Promise.all(warm);
      // A carries a health check; the validate goes on B.
      const health = client.healthCheck();
      const onA = await nextArrival();
      const validate = client.validate('t', 'GET');
      const onB = await nextArrival();
      expect(onB.socket).not.toBe(onA.socket);
      // A answers, then the stall ends: B is closed under the validate, and so is A, idle as long.
      onA.answer();
      await health;
      onB.socket.end();
      const replay = await nextArrival();
      expect(replay.socket).toBe(onA.socket);
      replay.socket.end();
      const settled = validate.then(
        (r) => r.status,
        (err: { code?: string }) => err.code,
      );
      const third = await Promise.race([nextArrival(), settled]);
      expect(typeof third).toBe('object');
      const onNew = third as Arrival;
      expect([onA.socket, onB.socket]).not.toContain(onNew.socket);
      onNew.answer();
      expect(await settled).toBe(200);
      expect([onB, replay, onNew].map((a) => a.line)).toEqual(Array(3).fill('GET /tokens/validate'));
    } finally {
      await client.close();
    }
  });
});
