// A target that cannot be talked to at all is exit 3 with one line, before any check, not
// thirty errored checks and exit 1; one that accepts TCP and then says nothing is exit 3 once
// the preflight's 10 s are up, not a hang.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startSilent, startTcp, type Started } from '../tls/servers.js';

const cases: Array<{ name: string; start: () => Promise<Started>; line: RegExp }> = [
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
    line: /accepted the connection but completed no TLS handshake within 10 s/,
  },
];

describe('a target that cannot be talked to', () => {
  it.each(cases)(
    '$name → exit 3, one line, no check run',
    async ({ start, line }) => {
      const server = await start();
      try {
        const cwd = mkdtempSync(join(tmpdir(), 'ces-unreachable-'));
        const started = Date.now();
        const res = await runCliInProcess(['check', '--base-url', server.url, '--report-dir', 'report'], {
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
