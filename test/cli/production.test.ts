// Safety: load and rate-limit probing of an environment named production need the explicit flag.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Report } from '../../src/report/model.js';
import { virtualClock } from '../../src/time/clock.js';
import { runCliInProcess } from '../helpers/cli.js';

describe('an environment named production', () => {
  let emulator: Emulator;
  let cwd: string;
  // The run and the emulator on one virtual clock: token.same-before-expiry's 1.1 s span passes in an instant.
  const clock = virtualClock();
  const env = () => ({ PR_ID: emulator.credentials.clientId, PR_SECRET: emulator.credentials.clientSecret });
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, environments: ['production'], tokenTtlS: 86_400, now: clock.now });
    cwd = mkdtempSync(join(tmpdir(), 'ces-prod-'));
    writeFileSync(
      join(cwd, 'ces-harness.yaml'),
      `target: production\nenvironments:\n  production:\n    base_url: ${emulator.url}\n    client_id: \${PR_ID}\n    client_secret: \${PR_SECRET}\n    ca_file: ${emulator.caFile}\nledger: off\n`,
    );
  });
  afterAll(async () => emulator.close());

  it('check runs, but skips the rate-limit probe and says why', async () => {
    const dir = join(cwd, 'r1');
    const res = await runCliInProcess(['check', '--report-dir', dir], { cwd, env: env(), clock });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    const probe = report.checks.find((c) => c.id === 'ratelimit.limit-enforced');
    expect(probe?.status).toBe('skip');
    expect(probe?.message).toContain('--allow-production-load');
  });

  it('load is refused with exit 2 unless --allow-production-load is given', async () => {
    const res = await runCliInProcess(['load'], { cwd, env: env() });
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(/^ces-harness: load against production is refused; pass --allow-production-load/);
  });
});
