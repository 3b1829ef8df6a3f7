// `ratelimit` when the service turns hostile once k6 takes over: it answers the probe as a fixed
// window of 5 a second does, then leaves every request of k6's proof without an answer (headers
// that never end). The run still ends within its bounds, exit 1 (the proof could not hold), with its
// report, no secret or token in any output, and no k6 left running. Real TLS on 127.0.0.1 port 0,
// the real k6 (a whole run: the real tier). k6's 429s with a body without end ran 87 s of paced
// proof rounds to the same ending (proven, not identified: exit 1 then; since 30 Nov a search's
// hold over the horizon sizes the limit), too long to keep here; k6's memory against bodies
// without end is test/k6/body-without-end.test.ts.

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markedProcesses } from '../../src/client/run-marker.js';
import type { Report } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-https.js';
import { createTestPki } from '../tls/pki.js';
import { CONFORMANT } from '../tls/servers.js';

const pki = createTestPki();
const SECRET = 'hostile-k6-secret-5be0a1';
const ID = 'hostile-k6-client';
const TOKEN = 'tk_hostile_k6_0123456789abcdef0123456789';
const EXPIRES_AT = Math.floor(Date.now() / 1000) + 86_400;

/** k6's requests, told by the user agent the scenarios give it (scenarios/lib/options.ts). */
const fromK6 = (req: IncomingMessage) => String(req.headers['user-agent']).includes('k6');

type Turn = (req: IncomingMessage, res: ServerResponse, limited: boolean) => boolean;

/** A conformant service limited to 5 a second (fixed window) on everything but the token and health check; `turn` may take over. */
function limitedService(turn: Turn) {
  let windowStart = 0;
  let inWindow = 0;
  return (req: IncomingMessage, res: ServerResponse, body: string) => {
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
        .end(JSON.stringify(value));
    if (req.url === '/tokens/health_check') return void res.writeHead(200).end(`alive ${new Date().toISOString()}`);
    if (req.url === '/tokens') {
      const c = (JSON.parse(body || '{}') as { token?: { client_id?: string; client_secret?: string } }).token;
      if (c?.client_id !== ID || c.client_secret !== SECRET) return json(401, { error: 'unauthorized' });
      return json(200, { token: TOKEN, expires_at: EXPIRES_AT, token_type: 'Bearer' });
    }
    const now = Date.now();
    if (now - windowStart >= 1000) {
      windowStart = now - (now % 1000);
      inWindow = 0;
    }
    const limited = ++inWindow > 5;
    if (turn(req, res, limited)) return;
    if (limited) return json(429, { error: 'rate limited' }, { 'retry-after': '1' });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(401, { error: 'unauthorized' });
    return json(200, { valid: true, message: 'token is valid' });
  };
}

const cases: Array<{ name: string; turn: Turn; codes: number[] }> = [
  {
    name: "k6's proof requests get headers that never end",
    codes: [1],
    turn: (req, _res) => {
      if (!fromK6(req)) return false;
      const socket = req.socket;
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n');
      const more = setInterval(() => (socket.destroyed ? clearInterval(more) : socket.write('x-more: 1\r\n')), 50);
      socket.once('close', () => clearInterval(more));
      return true;
    },
  },
];

describe.skipIf(process.platform !== 'linux')('ratelimit when the service turns hostile under k6', () => {
  it.each(cases)(
    '$name: ends, a report, no leak, no k6 left',
    async ({ turn, codes }) => {
      const handle = limitedService(turn);
      const server = createServer({ key: pki.keyPem, cert: pki.certPem, ...CONFORMANT }, (req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => handle(req, res, body));
      });
      server.on('tlsClientError', () => undefined);
      const marker = randomUUID();
      try {
        const url = await listenLoopback(server);
        const cwd = mkdtempSync(join(tmpdir(), 'ces-hostile-k6-'));
        writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
        const started = Date.now();
        const res = await runCli(
          // A probe of 30 s at most and proof rounds of 3 s keep the run within a minute. The window of
          // 5 is read on the clock in 7.6–14.7 s (real, 30 runs, half beside stress-ng), 25.5 s where
          // the drain straddles its edge (3 of the 30; virtual: slow-probe-window-virtual.test.ts).
          // Before, 7 of 20 starting phases left it not identified, and a probe that ran to its cap
          // was partial, so no k6 round ran (proof 'not run': CI, and here once beside stress-ng).
          [
            ...['ratelimit', '--base-url', url, '--ca', 'ca.pem', '--report-dir', 'report', '--request-timeout', '2'],
            ...['--max-duration', '30', '--horizon', '3', '--max-rps', '20'],
          ],
          {
            cwd,
            env: { CES_CLIENT_ID: ID, CES_CLIENT_SECRET: SECRET, HOSTILE_K6_RUN: marker },
            timeoutMs: 120_000,
          },
        );
        expect(codes, res.stdout + res.stderr).toContain(res.code);
        expect(Date.now() - started).toBeLessThan(100_000);
        // Nothing carrying this run's mark outlives it: k6 inherits the variable (only CES_* and K6_* are dropped).
        expect(markedProcesses(marker, '/proc', 'HOSTILE_K6_RUN')).toEqual([]);
        const report = JSON.parse(readFileSync(join(cwd, 'report', 'report.json'), 'utf8')) as Report;
        expect(report.rate_limit?.proof_verdict).not.toBe('not run');
        const left = readdirSync(cwd, { recursive: true, encoding: 'utf8' }).filter((f) =>
          statSync(join(cwd, f)).isFile(),
        );
        for (const text of [res.stdout, res.stderr, ...left.map((f) => readFileSync(join(cwd, f), 'utf8'))])
          for (const secret of [SECRET, TOKEN]) expect(text.includes(secret)).toBe(false);
      } finally {
        closeLoopback(server);
      }
    },
    130_000,
  );
});
