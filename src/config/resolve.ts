// One precedence: flags over the config file over defaults. The result is everything a command
// needs to talk to a target; nothing downstream reads flags, files or process.env again.

import { existsSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { HarnessError } from '../errors.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';
import type { BusinessCall, BusinessCalls, HttpMethod } from '../spec/endpoints.js';
import type { Expectations, RateLimitSettings } from './check-settings.js';
import { readConfigFile } from './load.js';
import type { ConfigFile } from './schema.js';
import { parseCaPem } from './ca-pem.js';
import { isProduction, type Target } from './target.js';

export const DEFAULT_CONFIG_FILE = 'ces-harness.yaml';
export const DEFAULT_LEDGER_FILE = '.ces-harness/token-ledger.json';

export const DEFAULTS = {
  tokenLifetimeS: 86_400, // §5.4
  expiryWaitS: 0,
  clockToleranceS: 2,
  rateLimitEndpoint: 'tokens.validate',
  maxRps: 200,
  maxRequests: 3_000,
} as const;

/** What the flags may override. Undefined means "not given". */
export interface Overrides {
  config?: string;
  env?: string;
  baseUrl?: string;
  ca?: string;
  tokenLifetimeS?: number;
  expiryWaitS?: number;
  clockToleranceS?: number;
  allowProductionLoad?: boolean;
  ledger?: string;
}

export interface Settings {
  /** Null when nothing names a target: the commands then start the built-in emulator. */
  target: Target | null;
  others: Target[];
  expect: Expectations;
  business: BusinessCalls;
  rateLimit: Omit<RateLimitSettings, 'probingAllowed' | 'recoveryWaitS'>;
  allowProductionLoad: boolean;
  ledgerPath: string | null;
  load: NonNullable<ConfigFile['load']>;
  /** The config file that was read, if any. */
  configPath: string | null;
  /** What the user should hear about the config without it being an error (a secret written in it). */
  warnings: string[];
}

export function resolveSettings(flags: Overrides, env: NodeJS.ProcessEnv, cwd: string): Settings {
  const configPath = flags.config ?? (existsSync(resolvePath(cwd, DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  const absoluteConfig = configPath ? resolvePath(cwd, configPath) : null;
  const loaded = absoluteConfig ? readConfigFile(absoluteConfig, env) : { config: {}, warnings: [] };
  const file: ConfigFile = loaded.config;
  const configDir = absoluteConfig ? dirname(absoluteConfig) : cwd;

  const environments = file.environments ?? {};
  const name = flags.env ?? file.target ?? 'sandbox';
  const configured = environments[name];
  if (!configured && Object.keys(environments).length > 0 && !flags.baseUrl) {
    throw new HarnessError(
      'UNKNOWN_ENVIRONMENT',
      `environment "${name}" is not in ${configPath}; known: ${Object.keys(environments).join(', ')} (pass --env NAME)`,
    );
  }
  if (flags.env && !configured && !flags.baseUrl) {
    throw new HarnessError('UNKNOWN_ENVIRONMENT', `environment "${name}" is not configured; add it under environments: in ${DEFAULT_CONFIG_FILE} or pass --base-url`);
  }

  const caFromFlag = flags.ca ? readCa(resolvePath(cwd, flags.ca), '--ca') : undefined;
  const toTarget = (envName: string, e: NonNullable<typeof configured>): Target => {
    const ca = caFromFlag ?? (e.ca_file ? readCa(resolvePath(configDir, e.ca_file), `environments.${envName}.ca_file`) : undefined);
    return {
      environment: envName,
      baseUrl: trimSlash(envName === name && flags.baseUrl ? validUrl(flags.baseUrl) : validUrl(e.base_url, `environments.${envName}.base_url`)),
      credentials: { clientId: e.client_id, clientSecret: e.client_secret },
      ...(ca ?? {}),
    };
  };

  let target: Target | null = null;
  if (configured) target = toTarget(name, configured);
  else if (flags.baseUrl) {
    const baseUrl = trimSlash(validUrl(flags.baseUrl));
    const clientId = env['CES_CLIENT_ID'];
    const clientSecret = env['CES_CLIENT_SECRET'];
    if (!clientId || !clientSecret) {
      const missing = [!clientId && 'CES_CLIENT_ID', !clientSecret && 'CES_CLIENT_SECRET'].filter(Boolean).join(' and ');
      throw new HarnessError('MISSING_CREDENTIAL', `no client credentials for ${withoutUserinfo(flags.baseUrl)}: export ${missing} (credentials are never taken from flags)`);
    }
    target = { environment: name, baseUrl, credentials: { clientId, clientSecret }, ...(caFromFlag ?? {}) };
  }
  // A config file that names no environment to test is a mistake, never a reason to fall back to
  // the built-in emulator: that would PASS without testing what the user meant to test.
  if (!target && absoluteConfig) {
    throw new HarnessError(
      'CONFIG_INVALID',
      `config ${configPath} has no environment to test (no environments: entry named "${name}"); add environments: ${name}: base_url: …, or pass --base-url`,
    );
  }
  const others = Object.entries(environments)
    .filter(([n]) => n !== name)
    .map(([n, e]) => toTarget(n, e));

  const business = {
    evaluation: withDefaults(file.business?.evaluation),
    ach_transactions: withDefaults(file.business?.ach_transactions),
  };

  const ledger = flags.ledger ?? file.ledger ?? DEFAULT_LEDGER_FILE;
  return {
    target,
    others,
    expect: {
      tokenLifetimeS: flags.tokenLifetimeS ?? file.expect?.token_lifetime_s ?? DEFAULTS.tokenLifetimeS,
      expiryWaitS: flags.expiryWaitS ?? file.expect?.expiry_wait_s ?? DEFAULTS.expiryWaitS,
      clockToleranceS: flags.clockToleranceS ?? file.expect?.clock_tolerance_s ?? DEFAULTS.clockToleranceS,
    },
    business,
    rateLimit: {
      endpoint: file.rate_limit?.endpoint ?? DEFAULTS.rateLimitEndpoint,
      maxRps: file.rate_limit?.max_rps ?? DEFAULTS.maxRps,
      maxRequests: file.rate_limit?.max_requests ?? DEFAULTS.maxRequests,
    },
    allowProductionLoad: flags.allowProductionLoad ?? false,
    ledgerPath: ledger === 'off' ? null : resolvePath(absoluteConfig && !flags.ledger && file.ledger ? configDir : cwd, ledger),
    load: file.load ?? {},
    configPath: absoluteConfig,
    warnings: loaded.warnings,
  };
}

/** Load and rate-limit probing of production need the explicit flag (contract: safety). */
export function probingAllowed(settings: Pick<Settings, 'allowProductionLoad'>, target: Target): boolean {
  return !isProduction(target) || settings.allowProductionLoad;
}

function withDefaults(call: { method?: HttpMethod; body?: unknown } | undefined): BusinessCall {
  return { method: call?.method ?? 'POST', body: call?.body ?? {} };
}

function readCa(path: string, from: string): { caPem: string; caFile: string } {
  let pem: string;
  try {
    pem = readUserFile(path, { what: from, maxBytes: FILE_LIMITS.ca, fix: 'give the CA certificate in PEM form' });
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    throw new HarnessError('CONFIG_INVALID', `${from}: cannot read CA file ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}); give a readable PEM file`);
  }
  const parsed = parseCaPem(pem);
  if ('problem' in parsed) throw new HarnessError(from === '--ca' ? 'USAGE' : 'CONFIG_INVALID', `${from}: ${path} ${parsed.problem}`);
  return { caPem: pem, caFile: path };
}

function validUrl(url: string, from = '--base-url'): string {
  const code = from === '--base-url' ? 'USAGE' : 'CONFIG_INVALID';
  const shown = withoutUserinfo(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HarnessError(code, `${from} ${shown} is not a URL; give one like https://sandbox.example.test`);
  }
  // Refused before any request: a password in a URL lands in every log, report and ledger entry
  // that names the target, and the service takes its credentials in the POST /tokens body anyway.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new HarnessError(code, `${from} ${shown} has a user name or password in it; drop the user:password@ part (credentials come from CES_CLIENT_ID/CES_CLIENT_SECRET or the config's \${VAR}s)`);
  }
  if (parsed.protocol !== 'https:') {
    throw new HarnessError(code, `${from} ${shown} is not https: the service speaks TLS 1.3 only (§5.8); use an https:// URL`);
  }
  return url;
}

/** The URL as an error may show it: whatever stands before an `@` in the authority is hidden. */
const withoutUserinfo = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');

const trimSlash = (url: string) => url.replace(/\/+$/, '');
