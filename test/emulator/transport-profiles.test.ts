// What each transport profile does on the wire, seen from a raw TLS socket: which connection
// headers the answer carries, whether and when the server closes the connection after it, how
// long the answer takes, and which chain the server sends. (profiles.test.ts proves the harness
// passes against each; this proves each profile is the gateway it claims to be.)

import { connect, type DetailedPeerCertificate } from 'node:tls';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type ProfileName } from '../../src/emulator/index.js';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

interface Seen {
  head: string;
  /** ms from the request's last byte to the answer's first. */
  answerMs: number;
  /** ms from the answer to the server's close, undefined when still open after `watchMs`. */
  closedAfterMs: number | undefined;
  issuer: string;
  /** Subjects from the leaf up, as the verified chain shows them. */
  chain: string[];
}

/** One health check on a new connection, trusting the emulator's CA only; watches the socket for `watchMs` after the answer. */
function oneRequest(e: Emulator, watchMs: number): Promise<Seen> {
  const url = new URL(e.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: e.caPem, servername: 'localhost' }, () => {
      const peer = socket.getPeerCertificate(true);
      const chain: string[] = [];
      for (
        let c: DetailedPeerCertificate | undefined = peer;
        c && chain.length < 5;
        c = c.issuerCertificate === c ? undefined : c.issuerCertificate
      )
        chain.push(c.subject.CN as string);
      let sentAt = 0;
      let answeredAt: number | undefined;
      let text = '';
      let finished = false;
      const done = (closedAfterMs: number | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(watch);
        socket.destroy();
        resolve({
          head: text.split('\r\n\r\n')[0] ?? '',
          answerMs: (answeredAt ?? NaN) - sentAt,
          closedAfterMs,
          issuer: peer.issuer.CN as string,
          chain,
        });
      };
      // Bounded: 5 s for an answer, then `watchMs` for the close.
      let watch = setTimeout(() => done(undefined), 5_000);
      socket.on('data', (d: Buffer) => {
        if (answeredAt === undefined) {
          answeredAt = performance.now();
          clearTimeout(watch);
          watch = setTimeout(() => done(undefined), watchMs);
        }
        text += d.toString();
      });
      socket.on('end', () => done(answeredAt === undefined ? undefined : performance.now() - answeredAt));
      sentAt = performance.now();
      socket.write('POST /tokens/health_check HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n');
    });
    socket.on('error', reject);
  });
}

const start = async (profiles: ProfileName[], workMs?: number) =>
  (emulator = await createEmulator({
    port: 0,
    environments: ['sandbox'],
    profiles,
    ...(workMs !== undefined ? { workMs } : {}),
  }));

describe('transport profiles on the wire', () => {
  it.each([
    { profiles: [] as ProfileName[], connection: /^connection: keep-alive$/im, keepAlive: true, closes: false },
    {
      profiles: ['idle-close'] as ProfileName[],
      connection: /^connection: keep-alive$/im,
      keepAlive: false,
      closes: true,
      closesWithinMs: [250, 1_000],
    },
    {
      profiles: ['silent-close'] as ProfileName[],
      connection: /^connection: keep-alive$/im,
      keepAlive: false,
      closes: true,
      closesWithinMs: [0, 100],
    },
    {
      profiles: ['connection-close'] as ProfileName[],
      connection: /^connection: close$/im,
      keepAlive: false,
      closes: true,
      closesWithinMs: [0, 100],
    },
  ])(
    '$profiles: the answer says $connection, announces a keep-alive timeout: $keepAlive, the server closes: $closes',
    async ({ profiles, connection, keepAlive, closes, closesWithinMs }) => {
      const seen = await oneRequest(await start(profiles), 1_500);
      expect(seen.head).toMatch(/^HTTP\/1\.1 200/);
      expect(seen.head).toMatch(connection);
      expect(/^keep-alive: timeout=\d+/im.test(seen.head)).toBe(keepAlive);
      expect(seen.closedAfterMs !== undefined).toBe(closes);
      if (closesWithinMs) {
        expect(seen.closedAfterMs).toBeGreaterThanOrEqual(closesWithinMs[0]!);
        expect(seen.closedAfterMs).toBeLessThan(closesWithinMs[1]!);
      }
    },
  );

  it('latency: each answer leaves 50 ± 20 ms after the request', async () => {
    const e = await start(['latency']);
    const times = [];
    for (let i = 0; i < 3; i++) times.push((await oneRequest(e, 0)).answerMs);
    for (const ms of times) expect(ms).toBeGreaterThanOrEqual(30 - 1);
  });

  it('slow-token-issue: POST /tokens answers 1.2 s or more after the request, the health check at once', async () => {
    const e = await start(['slow-token-issue']);
    const dispatcher = new Agent({ connect: { ca: e.caPem } });
    try {
      const timed = async (path: string, body: string) => {
        const sentAt = performance.now();
        const res = await request(`${e.url}${path}`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
          dispatcher,
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        await res.body.dump();
        return { status: res.statusCode, ms: performance.now() - sentAt };
      };
      const { clientId, clientSecret } = e.credentials;
      const issued = await timed(
        '/tokens',
        JSON.stringify({ token: { client_id: clientId, client_secret: clientSecret } }),
      );
      expect(issued.status).toBe(200);
      expect(issued.ms).toBeGreaterThanOrEqual(1_200 - 1);
      // Only issuing is slow: the health check does not wait the 1.2 s.
      expect((await timed('/tokens/health_check', '')).ms).toBeLessThan(1_200);
    } finally {
      await dispatcher.close();
    }
  });

  it.each<{ name: string; profiles: ProfileName[]; workMs?: number; turnMs: number }>([
    { name: 'single-worker', profiles: ['single-worker'], turnMs: 8 },
    // The option a test puts a slower service behind a gateway with (nginx-slow-upstream.test.ts).
    { name: 'workMs 20', profiles: [], workMs: 20, turnMs: 20 },
  ])(
    '$name: requests sent together are answered one $turnMs ms turn after another',
    async ({ profiles, workMs, turnMs }) => {
      // Ten connections opened first (their handshakes out of the way), then a request on each at once:
      // the service takes them one at a time, so the last answer leaves at least 10 turns after the
      // requests (an upper bound without it would time the machine, not the profile).
      const lastAnswerMs = async (on: Emulator) => {
        const url = new URL(on.url);
        const sockets = await Promise.all(
          Array.from(
            { length: 10 },
            () =>
              new Promise<ReturnType<typeof connect>>((resolve, reject) => {
                const socket = connect({
                  host: url.hostname,
                  port: Number(url.port),
                  ca: on.caPem,
                  servername: 'localhost',
                });
                socket.once('secureConnect', () => resolve(socket));
                socket.once('error', reject);
              }),
          ),
        );
        try {
          const sentAt = performance.now();
          const answered = sockets.map(
            (socket) =>
              new Promise<number>((resolve, reject) => {
                const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5_000);
                socket.once('data', () => resolve(performance.now() - sentAt));
                socket.once('data', () => clearTimeout(timer));
              }),
          );
          for (const socket of sockets)
            socket.write('POST /tokens/health_check HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n');
          return Math.max(...(await Promise.all(answered)));
        } finally {
          for (const socket of sockets) socket.destroy();
        }
      };
      expect(await lastAnswerMs(await start(profiles, workMs))).toBeGreaterThanOrEqual(10 * turnMs - 1);
    },
  );

  it('intermediate-ca: the leaf comes with its intermediate and verifies against the root the emulator publishes', async () => {
    const seen = await oneRequest(await start(['intermediate-ca']), 0);
    expect(seen.issuer).toBe('ces-harness emulator intermediate CA');
    expect(seen.chain).toEqual(['localhost', 'ces-harness emulator intermediate CA', 'ces-harness emulator CA']);
  });
});
