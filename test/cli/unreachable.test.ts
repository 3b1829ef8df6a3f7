// A target that cannot be talked to at all is exit 3 with one line, before any check, not
// thirty errored checks and exit 1; one that accepts TCP and then says nothing is exit 3 once
// the preflight's request timeout is up (10 s unless --request-timeout; 1 s here), not a hang.

import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls, { type TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { createTestPki } from '../tls/pki.js';
import { CONFORMANT, startSilent, startTcp, type Started } from '../tls/servers.js';

const cases: Array<{ name: string; start: () => Promise<Started>; line: RegExp; args?: string[] }> = [
  {
    name: 'resets every connection',
    start: () => startTcp((s) => s.resetAndDestroy()),
    line: /\(ECONNRESET: the connection was closed or reset before the TLS handshake finished\)/,
  },
  {
    name: 'closes every connection',
    start: () => startTcp((s) => s.end()),
    line: /\(ECONNRESET: the connection was closed or reset before the TLS handshake finished\)/,
  },
  {
    name: 'accepts and never answers',
    start: () => startSilent(),
    args: ['--request-timeout', '1'],
    line: /accepted the connection but completed no TLS handshake within 1 s/,
  },
];

describe('a target that cannot be talked to', () => {
  it.each(cases)(
    '$name → exit 3, one line, no check run',
    async ({ start, line, args = [] }) => {
      const server = await start();
      try {
        const cwd = mkdtempSync(join(tmpdir(), 'ces-unreachable-'));
        const started = Date.now();
        const res = await runCliInProcess(['check', '--base-url', server.url, '--report-dir', 'report', ...args], {
          cwd,
          env: { CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'secret' },
          timeoutMs: 40_000,
        });
        expect(res.code, res.stdout + res.stderr).toBe(3);
        expect(Date.now() - started).toBeLessThan(30_000);
        expect(res.stdout).toBe('');
        const lines = res.stderr.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/^ces-harness: /);
        expect(lines[0]).toMatch(line);
        // The report folder checked up front is taken away again: there is no report to put in it.
        expect(existsSync(join(cwd, 'report'))).toBe(false);
      } finally {
        await server.close();
      }
    },
    60_000,
  );
});

// A TLS endpoint with nothing behind it (a terminator whose backend is down) completes the
// handshake and then closes: every check errored and the run ended 1 before. It is the target
// that cannot be reached, on every command that talks to one.
describe('a target that completes the TLS handshake and then gives no answer', () => {
  const pki = createTestPki();
  const behaviours: Array<{ name: string; onSecure: (s: TLSSocket) => void; line: RegExp }> = [
    {
      name: 'closes at once',
      onSecure: (s) => s.end(),
      line: /completed the TLS handshake, then (closed the connection|dropped it \(ECONNRESET\)) without answering POST \/tokens\/health_check/,
    },
    {
      name: 'reads the request and closes',
      onSecure: (s) => s.once('data', () => s.end()),
      line: /completed the TLS handshake, then (closed the connection|dropped it \(ECONNRESET\)) without answering/,
    },
    {
      name: 'reads the request and drops the connection (no close_notify)',
      onSecure: (s) => s.once('data', () => s.destroy()),
      line: /completed the TLS handshake, then (closed the connection|dropped it \(ECONNRESET\)) without answering/,
    },
  ];
  // cutover reads both environments from a config; production, first, is the one that cannot be reached.
  const commands = ['check', 'run', 'load', 'ratelimit', 'cutover'];
  const cases = behaviours.flatMap((b) => commands.map((command) => ({ ...b, command })));

  it.each(cases)('$name: $command → exit 3, one line, no report', async ({ onSecure, line, command }) => {
    const server = tls.createServer({ key: pki.keyPem, cert: pki.certPem, ...CONFORMANT }, (s) => {
      s.on('error', () => {});
      onSecure(s);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'ces-unanswered-'));
      writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Sandbox by the server's other name (one service under two names is refused): never reached.
      const env = (name: string, base: string) =>
        `  ${name}:\n    base_url: ${base}\n    client_id: \${CES_CLIENT_ID}\n    client_secret: \${CES_CLIENT_SECRET}\n    ca_file: ca.pem\n`;
      const config = `environments:\n${env('sandbox', url.replace('127.0.0.1', 'localhost'))}${env('production', url)}`;
      if (command === 'cutover') writeFileSync(join(cwd, 'ces-harness.yaml'), config);
      const target = command === 'cutover' ? [] : ['--base-url', url, '--ca', 'ca.pem'];
      const res = await runCliInProcess([command, ...target, '--report-dir', 'report'], {
        cwd,
        env: { CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'not-a-word-anywhere' },
        timeoutMs: 40_000,
      });
      expect(res.code, res.stdout + res.stderr).toBe(3);
      // No check line: cutover has only named the side it was starting.
      expect(res.stdout.replace(/^— production —\n/, '')).toBe('');
      const lines = res.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^ces-harness: cannot reach https:\/\/127\.0\.0\.1:\d+: /);
      expect(lines[0]).toMatch(line);
      expect(existsSync(join(cwd, 'report'))).toBe(false);
    } finally {
      server.close();
    }
  });
});
