// history: and regressions: in the config, and --history: one resolution, the key path named in
// every error.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HISTORY_FILE, embedded, resolveSettings } from '../../src/config/resolve.js';
import { HarnessError } from '../../src/errors.js';
import { DEFAULT_REGRESSION_POLICY } from '../../src/report/sections/since/model.js';

const TARGET =
  'environments:\n  sandbox: { base_url: https://sandbox.example.test, client_id: "${ID}", client_secret: "${SECRET}" }\n';
const ENV = { ID: 'id', SECRET: 'secret-value' };
const folder = (yaml: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-history-settings-'));
  writeFileSync(join(dir, 'ces-harness.yaml'), TARGET + yaml);
  return dir;
};

describe('history settings', () => {
  it('defaults to .ces-harness/history.jsonl in the working folder, warn for every kind, 10 runs', async () => {
    const dir = folder('');
    const s = await resolveSettings({}, ENV, dir);
    expect(s.historyPath).toBe(join(dir, DEFAULT_HISTORY_FILE));
    expect(s.regressions).toEqual(DEFAULT_REGRESSION_POLICY);
    expect(DEFAULT_REGRESSION_POLICY).toEqual({
      check: 'warn',
      fact: 'warn',
      latency: 'warn',
      rate_limit: 'warn',
      runs: 10,
    });
  });

  it('takes history: relative to the config, --history over it, and off', async () => {
    const dir = folder('history: state/h.jsonl\nregressions: { latency: fail, runs: 20 }\n');
    const cwd = mkdtempSync(join(tmpdir(), 'ces-history-cwd-'));
    const config = join(dir, 'ces-harness.yaml');
    expect((await resolveSettings({ config }, ENV, cwd)).historyPath).toBe(join(dir, 'state', 'h.jsonl'));
    expect((await resolveSettings({ config, history: 'mine.jsonl' }, ENV, cwd)).historyPath).toBe(
      join(cwd, 'mine.jsonl'),
    );
    expect((await resolveSettings({ config, history: 'off' }, ENV, cwd)).historyPath).toBeNull();
    expect((await resolveSettings({ config }, ENV, cwd)).regressions).toEqual({
      ...DEFAULT_REGRESSION_POLICY,
      latency: 'fail',
      runs: 20,
    });
  });

  it('keeps no history for the built-in emulator', async () => {
    const s = await resolveSettings({}, {}, mkdtempSync(join(tmpdir(), 'ces-history-none-')));
    expect(
      embedded(s, [
        { environment: 'sandbox', baseUrl: 'https://127.0.0.1:1', credentials: { clientId: 'a', clientSecret: 'b' } },
      ]).historyPath,
    ).toBeNull();
  });

  it.each([
    ['regressions: { latency: maybe }', /regressions\.latency/],
    ['regressions: { runs: 2 }', /regressions\.runs/],
    ['regressions: { speed: fail }', /regressions.*speed/],
  ])('refuses %s with exit 2, naming the key', async (yaml, key) => {
    const err = await resolveSettings({}, ENV, folder(`${yaml}\n`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HarnessError);
    expect((err as HarnessError).exitCode).toBe(2);
    expect((err as HarnessError).message).toMatch(key);
  });
});
