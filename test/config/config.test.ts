import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { resolveSettings } from '../../src/config/resolve.js';

const GOOD = `
target: sandbox
environments:
  sandbox:
    base_url: https://sandbox.example.test
    client_id: \${SB_ID}
    client_secret: \${SB_SECRET}
  production:
    base_url: https://api.example.test
    client_id: \${PR_ID}
    client_secret: \${PR_SECRET}
expect:
  token_lifetime_s: 86400
business:
  evaluation: { method: POST, body: { applicant: 1 } }
rate_limit:
  endpoint: business.evaluation
  max_rps: 20
  max_requests: 100
  max_retry_after_s: 90
`;
const ENV = { SB_ID: 'sb-id', SB_SECRET: 'sb-secret-value', PR_ID: 'pr-id', PR_SECRET: 'pr-secret-value' };

function configError(text: string, env: NodeJS.ProcessEnv = ENV): HarnessError {
  try {
    parseConfig(text, 'ces-harness.yaml', env);
  } catch (err) {
    if (err instanceof HarnessError) return err;
    throw err;
  }
  throw new Error('expected a config error');
}

describe('config file', () => {
  it('parses, interpolates ${VAR} and types the result', () => {
    const config = parseConfig(GOOD, 'x.yaml', ENV);
    expect(config.environments?.['sandbox']?.client_secret).toBe('sb-secret-value');
    expect(config.rate_limit?.max_rps).toBe(20);
    expect(config.business?.evaluation?.body).toEqual({ applicant: 1 });
  });

  it.each([
    [
      'unknown key',
      GOOD.replace('expect:', 'expect:\n  token_lifetme_s: 5'),
      'CONFIG_INVALID',
      /unknown key expect\.token_lifetme_s/,
    ],
    [
      'wrong type',
      GOOD.replace('max_rps: 20', 'max_rps: fast'),
      'CONFIG_INVALID',
      /rate_limit\.max_rps: expected number, got string/,
    ],
    [
      'Retry-After bound out of range',
      GOOD.replace('max_retry_after_s: 90', 'max_retry_after_s: 0'),
      'CONFIG_INVALID',
      /rate_limit\.max_retry_after_s: .*a whole number of seconds from 1 to 3600/,
    ],
    [
      'bad endpoint',
      GOOD.replace('endpoint: business.evaluation', 'endpoint: everything'),
      'CONFIG_INVALID',
      /rate_limit\.endpoint: must be one of/,
    ],
    ['bad YAML', 'environments: [unclosed', 'CONFIG_INVALID', /line \d+/],
    [
      'not a URL',
      GOOD.replace('https://api.example.test', 'api'),
      'CONFIG_INVALID',
      /environments\.production\.base_url: expected a URL/,
    ],
  ])('%s names the key path', (_, text, code, message) => {
    const err = configError(text);
    expect(err.code).toBe(code);
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
  });

  it('an unset ${VAR} is a missing credential naming key and variable, never a value', () => {
    const err = configError(GOOD, { ...ENV, PR_SECRET: undefined });
    expect(err.code).toBe('MISSING_CREDENTIAL');
    expect(err.message).toContain('environments.production.client_secret');
    expect(err.message).toContain('PR_SECRET');
    expect(err.message).not.toContain('sb-secret-value');
  });
});

describe('resolveSettings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-config-'));
  const file = join(dir, 'ces-harness.yaml');
  writeFileSync(file, GOOD);

  it('flags override the file; the other environments become the isolation partners', async () => {
    const s = await resolveSettings(
      { config: file, env: 'production', 'token-lifetime': 60, 'allow-production-load': true },
      ENV,
      dir,
    );
    expect(s.target?.environment).toBe('production');
    expect(s.target?.credentials.clientId).toBe('pr-id');
    expect(s.others.map((o) => o.environment)).toEqual(['sandbox']);
    expect(s.expect.tokenLifetimeS).toBe(60);
    expect(s.expect.clockToleranceS).toBe(2);
    expect(s.rateLimit).toEqual({
      endpoint: 'business.evaluation',
      maxRps: 20,
      maxRequests: 100,
      recoveryWaitS: 60,
      maxRetryAfterS: 90,
      limitWaitS: 60,
      probingAllowed: true,
    });
  });

  it('an unknown environment is exit 2 and lists the known ones', async () => {
    await expect(resolveSettings({ config: file, env: 'staging' }, ENV, dir)).rejects.toThrowError(
      /environment "staging" is not in .*known: sandbox, production/,
    );
  });

  it('--base-url alone takes credentials from CES_CLIENT_ID/CES_CLIENT_SECRET', async () => {
    const s = await resolveSettings(
      { 'base-url': 'https://127.0.0.1:9/' },
      { CES_CLIENT_ID: 'a', CES_CLIENT_SECRET: 'b' },
      tmpdir(),
    );
    expect(s.target?.baseUrl).toBe('https://127.0.0.1:9');
    expect(s.target?.credentials).toEqual({ clientId: 'a', clientSecret: 'b' });
    await expect(resolveSettings({ 'base-url': 'https://127.0.0.1:9' }, {}, tmpdir())).rejects.toThrowError(
      /export CES_CLIENT_ID and CES_CLIENT_SECRET/,
    );
  });

  it('refuses plain http: the service is TLS 1.3 only', async () => {
    await expect(
      resolveSettings({ 'base-url': 'http://127.0.0.1:9' }, { CES_CLIENT_ID: 'a', CES_CLIENT_SECRET: 'b' }, tmpdir()),
    ).rejects.toThrowError(/not https/);
  });

  it('no config and no --base-url means no target (the emulator is used)', async () => {
    expect((await resolveSettings({}, {}, mkdtempSync(join(tmpdir(), 'ces-empty-')))).target).toBeNull();
  });

  it('a missing --config file is a config error', async () => {
    await expect(resolveSettings({ config: join(dir, 'nope.yaml') }, ENV, dir)).rejects.toThrowError(
      /cannot read it \(ENOENT\)/,
    );
  });
});
