// The token the harness meets on a real sandbox may have been fetched by anyone with the same
// credentials, curl included. `check` must not call its shorter remaining life a fault, and every
// command that fetches a token with the configured credentials (check, ratelimit, load) keeps
// what it saw in the token ledger, as a fingerprint beside a sealed token, never in plaintext.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { fingerprint } from '../../src/http/redact.js';
import { runCli } from '../helpers/cli.js';
import { realK6 } from '../k6/support.js';

const k6 = await realK6();
const work = () => mkdtempSync(join(tmpdir(), 'ces-shared-token-'));

let emulator: Emulator;
// The emulator's clock, moved back to play a client that fetched earlier.
let offsetMs = 0;
beforeAll(async () => {
  emulator = await createEmulator({ port: 0, tokenTtlS: 86_400, now: () => Date.now() + offsetMs });
});
afterAll(async () => emulator.close());

const env = () => ({
  CES_CLIENT_ID: emulator.credentials.clientId,
  CES_CLIENT_SECRET: emulator.credentials.clientSecret,
  ...(k6 ? { K6_BINARY: k6.path } : {}),
});
const target = () => ['--base-url', emulator.url, '--ca', emulator.caFile];

/** POST /tokens as curl would send it: another client of the same credentials. */
async function curlToken(): Promise<string> {
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: emulator.caPem } });
  try {
    const res = await request(`${emulator.url}/tokens`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        token: { client_id: emulator.credentials.clientId, client_secret: emulator.credentials.clientSecret },
      }),
    });
    return ((await res.body.json()) as { token: string }).token;
  } finally {
    await dispatcher.close();
  }
}

/** The ledger file's fingerprints, after checking it holds no whole token. */
function ledgerFingerprints(path: string, token: string): string[] {
  const text = readFileSync(path, 'utf8');
  expect(text).not.toContain(token);
  return (JSON.parse(text) as { entries: Array<{ fingerprint: string }> }).entries.map((e) => e.fingerprint);
}

describe('a token another client fetched first', () => {
  it('curl, then `check` 66 s later: token.lifetime passes, saying the lifetime is measured at the next rollover', async () => {
    offsetMs = -66_000;
    const token = await curlToken();
    offsetMs = 0;
    const cwd = work();
    const ledger = join(cwd, 'ledger.json');
    const res = await runCli(
      ['check', ...target(), '--only', 'token.lifetime', '--report-dir', join(cwd, 'report'), '--ledger', ledger],
      { cwd, env: env() },
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/✓ pass\s+token\.lifetime .*issued up to \d+ s ago .*next rollover/);
    expect(ledgerFingerprints(ledger, token)).toEqual([fingerprint(token)]);
  }, 60_000);

  it('`ratelimit` records the token its probe fetched in the ledger', async () => {
    const token = await curlToken();
    const cwd = work();
    const ledger = join(cwd, 'ledger.json');
    const res = await runCli(
      // A short horizon: this test is about the ledger, not how long the policy holds.
      [
        'ratelimit',
        ...target(),
        '--report-dir',
        join(cwd, 'report'),
        '--ledger',
        ledger,
        '--max-rps',
        '100',
        '--horizon',
        '10',
      ],
      { cwd, env: env(), timeoutMs: 150_000 },
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(ledgerFingerprints(ledger, token)).toContain(fingerprint(token));
  }, 160_000);

  it.skipIf(!k6)(
    '`load` records the token it fetched before k6 in the ledger',
    async () => {
      const token = await curlToken();
      const cwd = work();
      const ledger = join(cwd, 'ledger.json');
      const res = await runCli(
        [
          'load',
          ...target(),
          '--scenario',
          'token-lifecycle',
          '--duration',
          '2',
          '--report-dir',
          join(cwd, 'report'),
          '--ledger',
          ledger,
        ],
        { cwd, env: env(), timeoutMs: 90_000 },
      );
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(ledgerFingerprints(ledger, token)).toEqual([fingerprint(token)]);
    },
    100_000,
  );
});
