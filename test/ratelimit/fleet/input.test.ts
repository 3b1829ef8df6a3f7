// `--fleet N` and rate_limit.fleet: ranged, named in the error, resolved into the settings (flag
// over file), and refused by the built CLI before any request with exit 2 and one line.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../src/cli/flags.js';
import { parseConfig } from '../../../src/config/load.js';
import { resolveSettings } from '../../../src/config/resolve.js';
import { HarnessError } from '../../../src/errors.js';
import { runCliInProcess } from '../../helpers/cli.js';

const CONFIG = (fleet: string) => `
environments:
  sandbox:
    base_url: https://sandbox.example.test
    client_id: \${SB_ID}
    client_secret: \${SB_SECRET}
rate_limit:
  fleet: ${fleet}
`;
const ENV = { SB_ID: 'sb-id', SB_SECRET: 'sb-secret-value' };

function thrown(f: () => unknown): HarnessError {
  try {
    f();
  } catch (err) {
    if (err instanceof HarnessError) return err;
    throw err;
  }
  throw new Error('expected a HarnessError');
}

describe('--fleet and rate_limit.fleet', () => {
  it('parses --fleet on ratelimit only, as a whole number of instances from 1 to 100000', () => {
    expect(parseCommandLine(['ratelimit', '--fleet', '1000']).options.fleet).toBe(1000);
    for (const bad of ['0', '2.5', '100001', 'many']) {
      const err = thrown(() => parseCommandLine(['ratelimit', '--fleet', bad]));
      expect(err.exitCode).toBe(2);
      expect(err.message).toBe(`--fleet must be a whole number of client instances from 1 to 100000, got ${bad}`);
    }
    expect(thrown(() => parseCommandLine(['check', '--fleet', '4'])).message).toMatch(
      /--fleet does not apply to `ces-harness check`/,
    );
  });

  it('reads rate_limit.fleet from the config, naming the key when it is out of range', () => {
    expect(parseConfig(CONFIG('64'), 'x.yaml', ENV).rate_limit?.fleet).toBe(64);
    const err = thrown(() => parseConfig(CONFIG('-3'), 'x.yaml', ENV));
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.message).toMatch(/rate_limit\.fleet/);
  });

  it('resolves the flag over the file, and no fleet when neither names one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ces-fleet-config-'));
    try {
      writeFileSync(join(dir, 'ces-harness.yaml'), CONFIG('64'));
      expect((await resolveSettings({}, ENV, dir)).rateLimit.fleet).toBe(64);
      expect((await resolveSettings({ fleet: 8 }, ENV, dir)).rateLimit.fleet).toBe(8);
      expect((await resolveSettings({}, ENV, tmpdir())).rateLimit).not.toHaveProperty('fleet');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI refuses --fleet 0 with exit 2 and one line, before starting anything', async () => {
    const res = await runCliInProcess(['ratelimit', '--fleet', '0'], { timeoutMs: 20_000 });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toEqual([
      'ces-harness: --fleet must be a whole number of client instances from 1 to 100000, got 0',
    ]);
    expect(res.stdout).toBe('');
  });
});
