// Each leak once found, as a table: a real emulator on 127.0.0.1 port 0 showing it, the CLI run
// against it, and every output searched for the secret (every form) and every token it issued.

import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { filesUnder, leaksIn, plant } from './support.js';

const CASES: Array<{ name: string; secret: string; faults: FaultName[]; only: string[] }> = [
  {
    name: 'a malformed POST /tokens body answered with a token',
    secret: `plain-secret-${process.pid}`,
    faults: ['malformed-body-token'],
    only: ['token.malformed-body-refused'],
  },
  {
    name: 'a reflected request body, the secret holding " and \\',
    secret: `re"fl\\ect-${process.pid}`,
    faults: ['reflects-request'],
    only: ['token.bad-client-id-401', 'token.malformed-body-refused'],
  },
  {
    name: 'a token in Set-Cookie and Authorization of a 401',
    secret: `cookie-secret-${process.pid}`,
    faults: ['token-in-headers'],
    only: ['token.bad-secret-401', 'token.bad-client-id-401'],
  },
  {
    name: 'the secret named in an error message',
    secret: `named-secret-${process.pid}`,
    faults: ['secret-in-error'],
    only: ['token.bad-secret-401'],
  },
  {
    name: 'a secret of 3 characters, reflected',
    secret: 'k3y',
    faults: ['secret-in-error', 'reflects-request'],
    only: ['token.bad-secret-401', 'token.bad-client-id-401'],
  },
  {
    name: 'a secret of 3 characters that JSON escapes, reflected',
    secret: 'q"\\',
    faults: ['secret-in-error', 'reflects-request'],
    only: ['token.bad-secret-401', 'token.bad-client-id-401'],
  },
];

describe('leaks found before', () => {
  // Side by side: each is a CLI process against an emulator and in a folder of its own.
  it.concurrent.for(CASES)(
    '$name: caught by a failing check, and in no output',
    async ({ secret, faults, only }, { expect }) => {
      const planted = await plant({ clientId: 'regression-client', clientSecret: secret }, faults);
      try {
        const r = await planted.run(['check', '--report-dir', 'reports/r', ...only.flatMap((id) => ['--only', id])]);
        expect(r.code).toBe(1);
        expect(readdirSync(join(planted.dir, 'reports', 'r')).sort()).toEqual([
          'junit.xml',
          'report.html',
          'report.json',
          'report.md',
        ]);
        const places = [
          { name: 'stdout', text: r.stdout },
          { name: 'stderr', text: r.stderr },
          ...filesUnder(planted.dir).filter((f) => f.name !== 'ces-harness.yaml'),
        ];
        const values = [
          { what: 'secret', value: secret },
          ...planted.emulator.issuedTokens().map((value, i) => ({ what: `token #${i + 1}`, value })),
        ];
        expect(leaksIn(places, values)).toEqual([]);
      } finally {
        await planted.emulator.close();
        rmSync(planted.dir, { recursive: true, force: true });
      }
    },
  );
});

describe('a password in the base URL', () => {
  const env = { CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'the-secret' };

  it.each([
    { how: '--base-url', args: ['--base-url', 'https://alice:pa55-w0rd@127.0.0.1:1'], config: undefined },
    {
      how: 'a percent-encoded one in --base-url',
      args: ['--base-url', 'https://alice:pa55%2Fw0rd@127.0.0.1:1/'],
      config: undefined,
    },
    {
      how: 'base_url in the config',
      args: [],
      config:
        'environments:\n  sandbox:\n    base_url: https://alice:pa55-w0rd@127.0.0.1:1\n    client_id: id\n    client_secret: ${CES_CLIENT_SECRET}\n',
    },
  ])('$how: refused before any request, exit 2, one line that does not echo it', async ({ args, config }) => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-userinfo-'));
    if (config) writeFileSync(join(cwd, 'ces-harness.yaml'), config);
    // In-process: refused in main before anything starts, so no temp file a spawned run's TMPDIR could show.
    const r = await runCliInProcess(['check', ...args], { cwd, env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/user name or password in it; drop the user:password@ part/);
    expect(r.stderr).not.toMatch(/pa55|w0rd/);
    // Nothing written: no report folder, no ledger.
    expect(existsSync(join(cwd, 'reports'))).toBe(false);
    expect(existsSync(join(cwd, '.ces-harness'))).toBe(false);
    rmSync(cwd, { recursive: true, force: true });
  });
});

// A base URL with a query or fragment is refused before any request (exit 2): the one line that
// says so, and everything left on disk, must still not show what stood after the `?` or `#`.
describe('the client secret in the base URL query or fragment', () => {
  it.each([
    { how: 'query', suffix: (s: string) => `/?key=${encodeURIComponent(s)}` },
    { how: 'fragment', suffix: (s: string) => `/#${s}` },
  ])('$how: refused, and in no output or file', async ({ suffix }) => {
    const secret = `url-secret-${process.pid}`;
    const planted = await plant({ clientId: 'url-client', clientSecret: secret }, []);
    try {
      const r = await planted.run([
        'check',
        '--report-dir',
        'reports/r',
        '--only',
        'health.plain-text',
        '--base-url',
        planted.emulator.url + suffix(secret),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^ces-harness: --base-url .* has a (query|fragment)/m);
      const places = [
        { name: 'stdout', text: r.stdout },
        { name: 'stderr', text: r.stderr },
        ...filesUnder(planted.dir).filter((f) => f.name !== 'ces-harness.yaml'),
      ];
      expect(leaksIn(places, [{ what: 'secret', value: secret }])).toEqual([]);
    } finally {
      await planted.emulator.close();
      rmSync(planted.dir, { recursive: true, force: true });
    }
  });
});
