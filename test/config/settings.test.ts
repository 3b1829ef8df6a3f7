// One resolution gives fully defaulted settings: the built-in emulator's own defaults when nothing
// names a target, the real service's otherwise; probing permission, recovery wait and the load
// run's figures decided there, once; k8s's referenced credentials named without reading them.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, EMBEDDED, embedded, resolveSettings } from '../../src/config/resolve.js';
import type { Target } from '../../src/config/target.js';

// Production's credentials are not whole ${VAR}s: a literal id and a secret with a prefix.
const CONFIG = `
target: sandbox
environments:
  sandbox: { base_url: https://sandbox.example.test, client_id: "\${SB_ID}", client_secret: "\${SB_SECRET}" }
  production: { base_url: https://api.example.test, client_id: literal-id, client_secret: "prefix-\${PR_SECRET}" }
rate_limit: { max_rps: 30 }
`;
const ENV = { SB_ID: 'sb-id', SB_SECRET: 'sb-secret-value', PR_SECRET: 'pr-secret-value' };

const folder = (yaml?: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'ces-settings-'));
  if (yaml !== undefined) writeFileSync(join(dir, 'ces-harness.yaml'), yaml);
  return dir;
};

describe('resolveSettings: defaults', () => {
  it('no target: the built-in emulator’s expectations, recovery wait and over-limit rate', async () => {
    const s = await resolveSettings({}, {}, folder());
    expect(s.target).toBeNull();
    expect(s.expect).toEqual({
      tokenLifetimeS: EMBEDDED.tokenLifetimeS,
      expiryWaitS: EMBEDDED.expiryWaitS,
      clockToleranceS: EMBEDDED.clockToleranceS,
    });
    expect(s.rateLimit).toEqual({
      endpoint: 'tokens.validate',
      maxRps: DEFAULTS.maxRps,
      maxRequests: DEFAULTS.maxRequests,
      recoveryWaitS: EMBEDDED.recoveryWaitS,
      maxRetryAfterS: DEFAULTS.maxRetryAfterS,
      limitWaitS: DEFAULTS.limitWaitS,
      probingAllowed: true,
    });
    expect(s.load).toEqual({
      rate: 20,
      overLimitRate: EMBEDDED.overLimitRate,
      durationS: undefined,
      vus: 5,
      thresholds: undefined,
      outputs: [],
      segments: 1,
      given: { rate: false, overLimitRate: false },
    });
  });

  it('no target, flags given: the flags win over the emulator’s defaults', async () => {
    const s = await resolveSettings(
      { 'token-lifetime': 30, 'expiry-wait': 40, 'clock-tolerance': 0.5, segments: 3 },
      {},
      folder(),
    );
    expect(s.expect).toEqual({ tokenLifetimeS: 30, expiryWaitS: 40, clockToleranceS: 0.5 });
    expect(s.load.segments).toBe(3);
  });

  it('a real target: the service’s defaults; the over-limit rate follows max_rps', async () => {
    const s = await resolveSettings({}, ENV, folder(CONFIG));
    expect(s.target?.environment).toBe('sandbox');
    expect(s.expect).toEqual({ tokenLifetimeS: 86_400, expiryWaitS: 0, clockToleranceS: 2 });
    expect(s.rateLimit.recoveryWaitS).toBe(60);
    expect(s.rateLimit.probingAllowed).toBe(true);
    expect(s.load.overLimitRate).toBe(30);
    expect(s.load.given).toEqual({ rate: false, overLimitRate: false });
  });

  it('a rate given by flag is the user’s: run never sizes it again', async () => {
    const s = await resolveSettings({ rate: 7 }, {}, folder());
    expect(s.load.given).toEqual({ rate: true, overLimitRate: false });
  });

  it("the checks' wait on the rate limit: 60 s, the config's limit_wait_s, --limit-wait over both", async () => {
    const withKey = CONFIG.replace('rate_limit: { max_rps: 30 }', 'rate_limit: { max_rps: 30, limit_wait_s: 300 }');
    expect((await resolveSettings({}, ENV, folder(CONFIG))).rateLimit.limitWaitS).toBe(60);
    expect((await resolveSettings({}, ENV, folder(withKey))).rateLimit.limitWaitS).toBe(300);
    expect((await resolveSettings({ 'limit-wait': 900 }, ENV, folder(withKey))).rateLimit.limitWaitS).toBe(900);
  });

  it('production: probing only with --allow-production-load', async () => {
    expect((await resolveSettings({ env: 'production' }, ENV, folder(CONFIG))).rateLimit.probingAllowed).toBe(false);
    expect(
      (await resolveSettings({ env: 'production', 'allow-production-load': true }, ENV, folder(CONFIG))).rateLimit
        .probingAllowed,
    ).toBe(true);
  });

  it.each([
    ['the built-in emulator', {}, false, true, DEFAULTS.tokenLifetimeS],
    ['the built-in emulator, --token-lifetime 30', { 'token-lifetime': 30 }, false, false, 30],
    ['a real target', {}, true, false, 86_400],
  ] as const)(
    '%s: load and sizing go where settings.sizing says, expecting its token lifetime',
    async (_, flags, configured, ownEmulator, lifetimeS) => {
      const s = await resolveSettings(flags, configured ? ENV : {}, configured ? folder(CONFIG) : folder());
      expect(s.sizing.ownEmulator).toBe(ownEmulator);
      expect(s.sizing.expect).toEqual({ ...s.expect, tokenLifetimeS: lifetimeS });
    },
  );

  it('embedded(): the emulator’s listeners become target and partners, with no ledger', async () => {
    const s = await resolveSettings({}, {}, folder());
    const t = (environment: string): Target => ({
      environment,
      baseUrl: `https://127.0.0.1:1/${environment}`,
      credentials: { clientId: 'id', clientSecret: 'secret' },
      emulated: true,
    });
    const e = embedded(s, [t('sandbox'), t('production')]);
    expect(e.target.environment).toBe('sandbox');
    expect(e.others.map((o) => o.environment)).toEqual(['production']);
    expect(e.ledgerPath).toBeNull();
    expect(e.expect).toEqual(s.expect);
  });
});

describe('resolveSettings: credentials referenced, never read (k8s)', () => {
  const referenced = { credentialPlaceholder: 'referenced-from-secret' };

  it('names the variables of the target’s credentials, and needs none of them set', async () => {
    const s = await resolveSettings({}, {}, folder(CONFIG), referenced);
    expect(s.credentialVariables).toEqual({ clientId: 'SB_ID', clientSecret: 'SB_SECRET' });
    expect(s.target?.credentials).toEqual({
      clientId: 'referenced-from-secret',
      clientSecret: 'referenced-from-secret',
    });
  });

  it('never takes a value from the environment, even when it is set', async () => {
    const s = await resolveSettings({}, { ...ENV, CES_CLIENT_SECRET: 'ces-secret-value' }, folder(CONFIG), referenced);
    expect(JSON.stringify(s)).not.toMatch(/secret-value|sb-id/);
  });

  it('a credential that is not one whole ${VAR} falls back to CES_CLIENT_ID / CES_CLIENT_SECRET', async () => {
    expect((await resolveSettings({ env: 'production' }, {}, folder(CONFIG), referenced)).credentialVariables).toEqual({
      clientId: 'CES_CLIENT_ID',
      clientSecret: 'CES_CLIENT_SECRET',
    });
  });

  it('--base-url without a config takes CES_CLIENT_ID / CES_CLIENT_SECRET, as placeholders', async () => {
    const s = await resolveSettings(
      { 'base-url': 'https://127.0.0.1:9' },
      { CES_CLIENT_SECRET: 'ces-secret-value' },
      folder(),
      referenced,
    );
    expect(s.credentialVariables).toEqual({ clientId: 'CES_CLIENT_ID', clientSecret: 'CES_CLIENT_SECRET' });
    expect(s.target?.credentials.clientSecret).toBe('referenced-from-secret');
  });

  it('without the placeholder an unset variable is still the error it always was', async () => {
    await expect(resolveSettings({}, {}, folder(CONFIG))).rejects.toThrowError(
      /refers to \$\{SB_ID\}, which is not set/,
    );
  });
});
