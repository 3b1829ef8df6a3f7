// Wrong credentials are the user's to fix, not the service's: one line saying so on the terminal
// and at the top of every report format, the token-dependent checks not tested, exit 1, headed NOT TESTED, never PASS.
// Through the CLI against the real emulator (port 0), which refuses any secret but its own.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Report } from '../../src/report/model.js';
import { CHECKS } from '../../checks/index.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';

const WRONG_SECRET = 'wrong-secret-0123456789abcdef';
const REFUSAL =
  /POST \/tokens refused the configured client_id `[^`]+` with 401 .*either the credentials are wrong .* or the service refuses valid ones: check CES_CLIENT_ID \/ CES_CLIENT_SECRET/;

describe('check with credentials the service refuses', () => {
  let emulator: Emulator;
  let dir: string;
  let res: CliResult;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 86_400 });
    const cwd = mkdtempSync(join(tmpdir(), 'ces-credentials-'));
    dir = join(cwd, 'report');
    res = await runCliInProcess(['check', '--base-url', emulator.url, '--ca', emulator.caFile, '--report-dir', dir], {
      cwd,
      env: { CES_CLIENT_ID: emulator.credentials.clientId, CES_CLIENT_SECRET: WRONG_SECRET },
      timeoutMs: 120_000,
    });
  }, 150_000);
  afterAll(() => emulator.close());

  it('exits 1 headed NOT TESTED (nothing failed, no PASS) and says why in one line on the terminal', () => {
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toMatch(/^NOT TESTED /m);
    const lines = res.stdout.split('\n').filter((l) => l.startsWith('not tested (credentials): '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(REFUSAL);
  });

  it('reports the token-dependent checks as not tested, and blames the service for none of them', () => {
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    expect(report.verdict).toBe('fail');
    expect(report.untested[0]?.stage).toBe('credentials');
    expect(report.untested[0]?.reason).toMatch(REFUSAL);
    const needs = new Set(CHECKS.filter((c) => c.needsAcceptedCredentials).map((c) => c.id));
    const dependent = report.checks.filter((c) => needs.has(c.id));
    expect(dependent.length).toBeGreaterThan(10);
    for (const c of dependent)
      expect([c.id, c.status === 'pass' || c.message.startsWith('not tested: POST /tokens refused')]).toEqual([
        c.id,
        true,
      ]);
    // The rest were still judged, and the emulator is conformant: none of them fails.
    expect(report.checks.filter((c) => c.status === 'fail' || c.status === 'error').map((c) => c.id)).toEqual([]);
  });

  it('leads report.md and report.html with it, and junit.xml carries it', () => {
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const lead =
      md
        .split('### What failed')[1]
        ?.split('\n')
        .find((l) => l.startsWith('- ')) ?? '';
    expect(lead).toContain('the configured credentials were refused');
    expect(md).not.toMatch(/\*\*Do:\*\* fix the service/);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/<ul class="lead-items"><li>[^]*?the configured credentials were refused/);
    expect(html).not.toContain('fix the service so that');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(
      /<testcase name="credentials: could not test"[^]*?POST \/tokens refused the configured client_id/,
    );
  });

  it('writes the secret nowhere', () => {
    for (const file of ['report.json', 'report.md', 'report.html', 'junit.xml'])
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain(WRONG_SECRET);
    expect(res.stdout + res.stderr).not.toContain(WRONG_SECRET);
  });

  it('marks the checks that need a token, and none that need no credentials (health, TLS)', () => {
    const needs = new Set(CHECKS.filter((c) => c.needsAcceptedCredentials).map((c) => c.id));
    for (const id of [
      'token.issue',
      'validate.valid-token',
      'business.valid-token-accepted',
      'ratelimit.limit-enforced',
    ])
      expect([id, needs.has(id)]).toEqual([id, true]);
    expect([...needs].filter((id) => /^(health|tls)\./.test(id))).toEqual([]);
  });
});
