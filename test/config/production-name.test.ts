// No production by accident (issue 34): a name that reads like production, marked neither way, is
// refused (exit 2) when the settings are resolved, before any request; preprod-style staging names
// and names with no trace of production pass; the key the line names is the fix.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readsLikeProduction } from '../../src/config/production-name.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { HarnessError } from '../../src/errors.js';

describe('readsLikeProduction', () => {
  it.each([
    'prod',
    'PROD',
    'prd',
    'live',
    'production-eu',
    'prod-us',
    'eu-prod',
    'prod_eu',
    'api.prod',
    'prod1',
    'euprod',
    'ProdEU',
    'live2',
    'golive',
    'eu-live',
    'production2',
    'pre-live',
  ])('%s reads like production', (name) => expect(readsLikeProduction(name)).toBe(true));

  it.each([
    'sandbox',
    'staging',
    'uat',
    'dev',
    'test',
    'qa',
    'preprod',
    'pre-prod',
    'pre_production',
    'nonprod',
    'non-prod',
    'preprd',
    'delivery',
  ])('%s does not', (name) => expect(readsLikeProduction(name)).toBe(false));
});

const config = (name: string, mark = '') => `
target: sandbox
environments:
  sandbox: { base_url: https://sandbox.example.test, client_id: id, client_secret: "\${S}" }
  ${name}: { base_url: https://api.example.test, client_id: id, client_secret: "\${S}"${mark} }
`;
const resolve = (yaml: string, flags: Record<string, string> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-prodname-'));
  writeFileSync(join(dir, 'ces-harness.yaml'), yaml);
  return resolveSettings(
    flags,
    { S: 'secret-value-1234', CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'x-secret-1234' },
    dir,
  );
};
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => (err instanceof HarnessError ? `${err.exitCode} ${err.message}` : String(err)),
  );

describe('an environment that reads like production', () => {
  // Refused even when it is not the target: the other environments get the isolation probe.
  it.each(['prod', 'live', 'production-eu', 'prd'])(
    '%s, marked neither way, is refused with exit 2 naming the key',
    async (name) => {
      expect(await refusal(resolve(config(name)))).toBe(
        `2 config ces-harness.yaml: environment "${name}" reads like production but environments.${name}.production is not set; set environments.${name}.production: true (read-only: no load, probing or business call without an opt-in) or environments.${name}.production: false if it is a sandbox`,
      );
    },
  );

  it.each([
    [', production: true', true],
    [', production: false', undefined],
  ] as const)('marked%s, is taken as marked', async (mark, production) => {
    const s = await resolve(config('prod', mark), { env: 'prod' });
    expect(s.target?.production).toBe(production);
    expect(s.rateLimit.probingAllowed).toBe(production !== true);
  });

  it('preprod is a staging name: resolved as a sandbox without a key', async () => {
    const s = await resolve(config('preprod'), { env: 'preprod' });
    expect(s.target?.environment).toBe('preprod');
    expect(s.rateLimit.probingAllowed).toBe(true);
  });

  it('production: false on the environment named production is a contradiction, refused', async () => {
    expect(await refusal(resolve(config('production', ', production: false')))).toMatch(
      /^2 config ces-harness\.yaml: environments\.production\.production is false on an environment named "production", which is always production/,
    );
  });

  it('--env prod with --base-url (no config entry to mark) is refused; --env production is production', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ces-prodname-'));
    const env = { CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'x-secret-1234' };
    expect(await refusal(resolveSettings({ env: 'prod', 'base-url': 'https://api.example.test' }, env, dir))).toMatch(
      /^2 --env prod reads like production, .*production: true \(or production: false\)/,
    );
    const s = await resolveSettings({ env: 'production', 'base-url': 'https://api.example.test' }, env, dir);
    expect(s.rateLimit.probingAllowed).toBe(false);
  });
});

describe('a base URL that reads like production', () => {
  const env = { S: 'secret-value-1234', CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'x-secret-1234' };
  const sandboxAt = (url: string, mark = '') => `
environments:
  sandbox: { base_url: ${url}, client_id: id, client_secret: "\${S}"${mark} }
`;

  it.each([
    ['https://api.prod.example.test', 'prod'],
    ['https://ces-live.example.test:8443', 'ces-live'],
    ['https://gateway.example.test/production/v1', 'production'],
  ])('%s on an environment named sandbox, marked neither way, is refused naming the part', async (url, part) => {
    expect(await refusal(resolve(sandboxAt(url)))).toBe(
      `2 config ces-harness.yaml: environment "sandbox" has a base URL that reads like production (its "${part}"), but environments.sandbox.production is not set; set environments.sandbox.production: true (read-only: no load, probing or business call without an opt-in) or environments.sandbox.production: false if it is a sandbox`,
    );
  });

  it.each([
    [', production: true', true],
    [', production: false', undefined],
  ] as const)('marked%s, is taken as marked', async (mark, production) => {
    const s = await resolve(sandboxAt('https://api.prod.example.test', mark));
    expect(s.target?.production).toBe(production);
  });

  it('a staging or plain URL passes unmarked: preprod, sandbox, an IP address', async () => {
    for (const url of ['https://preprod.example.test', 'https://sandbox.example.test/v1', 'https://127.0.0.1:8443'])
      expect((await resolve(sandboxAt(url))).target?.baseUrl).toBe(url);
  });

  it('--base-url that reads like production, with no config to mark it, is refused before any request; --env production takes it read-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ces-prodname-'));
    expect(await refusal(resolveSettings({ 'base-url': 'https://ces.prd.example.test' }, env, dir))).toBe(
      '2 --base-url https://ces.prd.example.test reads like production (its "prd"), and a --base-url target cannot be marked either way; put it in a config under environments: with production: true (or production: false), or pass --env production',
    );
    const s = await resolveSettings({ env: 'production', 'base-url': 'https://ces.prd.example.test' }, env, dir);
    expect(s.rateLimit.probingAllowed).toBe(false);
  });

  it('--base-url over a config environment is read, not the URL it replaces', async () => {
    expect(
      await refusal(
        resolve(sandboxAt('https://sandbox.example.test'), { 'base-url': 'https://api.prod.example.test' }),
      ),
    ).toMatch(/environment "sandbox" has a base URL that reads like production \(its "prod"\)/);
  });
});
