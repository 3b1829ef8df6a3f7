// One precedence: flags over the config file over defaults. The result is everything a command
// needs to talk to a target, every value defaulted (the built-in emulator's own defaults when no
// target is named); nothing downstream reads flags, files or process.env again.

import { existsSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { HarnessError } from '../errors.js';
import { DEFAULT_REGRESSION_POLICY, type RegressionPolicy } from '../report/sections/since/model.js';
import { BUSINESS_ENDPOINTS, type BusinessCall, type BusinessCalls, type HttpMethod } from '../spec/endpoints.js';
import type { Expectations, ProductionSettings, RateLimitSettings } from './check-settings.js';
import type { ConfigFile } from './schema.js';
import type { Credentials } from '../spec/credentials.js';
import { isProduction, type Target } from './target.js';
import { readCa, refuseSharedUrl } from './target-input.js';
import {
  DEFAULT_CONFIG_FILE,
  baseUrlTarget,
  configuredTarget,
  refuseUnknownEnvironment,
  type TargetInputs,
} from './resolve-target.js';

export { DEFAULT_CONFIG_FILE, EMBEDDED_ENVIRONMENTS } from './resolve-target.js';

export const DEFAULT_LEDGER_FILE = '.ces-harness/token-ledger.json';
/** Beside the ledger, so the one cached folder carries both from run to run. */
export const DEFAULT_HISTORY_FILE = '.ces-harness/history.jsonl';

export const DEFAULTS = {
  tokenLifetimeS: 86_400, // §5.4
  expiryWaitS: 0,
  clockToleranceS: 2,
  rateLimitEndpoint: 'tokens.validate',
  maxRps: 200,
  maxRequests: 3_000,
  // A full `check` against production sends about 40 requests: room for twice that and a retry or two.
  productionMaxRequests: 100,
  // A real limiter may use minute windows: a real service gets the full minute a patient client would give it.
  recoveryWaitS: 60,
  // Per-minute windows are common, and a Retry-After of 61 s is then truthful: two minutes honours
  // any of them (check, run and ratelimit alike) without letting a probe sleep for an hour.
  maxRetryAfterS: 120,
  limitWaitS: 60,
  loadRate: 20,
  vus: 5,
  segments: 1,
  requestTimeoutS: 10,
} as const;

// The built-in emulator hands out short-lived tokens so that `npm start` proves expiry for real
// in seconds; the expectations below follow from it. 8 s, not less: every time edge is judged with
// a second for expires_at's rounding, the clock tolerance and the request's window on each side
// (src/time/expiry-edges.ts), and a lifetime half the promised one (the wrong-lifetime fault)
// must still lie clearly outside that, even when a saturated CPU stretches the window. The expiry
// wait covers the lifetime plus the rounding and tolerance after it.

export const EMBEDDED = {
  tokenLifetimeS: 8,
  expiryWaitS: 12,
  clockToleranceS: 1,
  // Its bucket refills within a second or two.
  recoveryWaitS: 15,
  // The built-in emulator limits each client to 50 requests/s (burst 50). The rate-limit scenario
  // spikes to twice that for 3 s, then falls to a tenth of it (scenarios/rate-limit.ts): past the
  // burst, so 429s come, and a backlog that drains within one retry budget, so a client that
  // honours Retry-After gets every call through.
  overLimitRate: 100,
} as const;

/**
 * The flags that take part in resolution, by their names in the flag table (the CLI's parsed
 * options fit as they are). Undefined means "not given".
 */
export interface SettingFlags {
  config?: string;
  env?: string;
  'base-url'?: string;
  ca?: string;
  'token-lifetime'?: number;
  'expiry-wait'?: number;
  'clock-tolerance'?: number;
  'allow-production-load'?: boolean;
  ledger?: string;
  history?: string;
  segments?: number;
  'request-timeout'?: number;
  'verbose-bodies'?: boolean;
  rate?: number;
  duration?: number;
  vus?: number;
  'max-rps'?: number;
  'limit-wait'?: number;
  fleet?: number;
  'max-duration'?: number;
  horizon?: number;
}

/** The load run's settings; only the duration is left to the command (a short one in `run`). */
export interface LoadSettings {
  rate: number;
  /** Arrival rate of the rate-limit scenario: about twice the service's limit is the size a correct client survives. */
  overLimitRate: number;
  durationS: number | undefined;
  vus: number;
  thresholds: Record<string, string[]> | undefined;
  /** k6 outputs, passed through as --out. */
  outputs: string[];
  /** Local k6 processes per scenario (execution segments). */
  segments: number;
  /**
   * Which rates the user set (flag or config): `run` sizes the others from the rate limit it
   * measures when the defaults meet a lower limit (src/stages/load-sized.ts), never a rate asked for.
   */
  given: { rate: boolean; overLimitRate: boolean };
}

export interface Settings {
  /** Null when nothing names a target: the commands then start the built-in emulator (see embedded()). */
  target: Target | null;
  others: Target[];
  /** For the built-in emulator, its own defaults: short tokens, so expiry is proven in seconds. */
  expect: Expectations;
  business: BusinessCalls;
  /** What production may receive: the request budget and the business endpoints opted in. */
  production: ProductionSettings;
  rateLimit: RateLimitSettings;
  ledgerPath: string | null;
  /** The run history (src/history/); null when off, and for the built-in emulator (new every run). */
  historyPath: string | null;
  regressions: RegressionPolicy;
  load: LoadSettings;
  /** The config file that was read, if any. */
  configPath: string | null;
  /** The environment the run is about (--env, the config's target:, else sandbox). */
  environmentName: string;
  /** The variables the target's credentials come from (CES_CLIENT_ID/SECRET unless the config names its own). */
  credentialVariables: { clientId: string; clientSecret: string };
  /** What the user should hear about the config without it being an error (a secret written in it). */
  warnings: string[];
  /** How long one request may take, connect to last byte; every target carries it too. */
  requestTimeoutS: number;
  /** --verbose-bodies: answers quoted whole (through the redactor); only the spec's fields otherwise. */
  verboseBodies?: boolean;
  sizing: SizingSettings;
}

/**
 * Where load and rate-limit sizing go. For a real service, the target itself. For the built-in
 * emulator, a second instance (same faults) with the service's real 24-hour tokens: a token
 * turning over every few seconds, as the checks want it, would distort every load figure with
 * re-fetches and 401s; expiry itself is proven by the checks. A lifetime the user gave
 * (--token-lifetime) is the one they want the load to see, short or not: then the target itself.
 */
export interface SizingSettings {
  /** True: the built-in emulator's long-lived instance; false: the target. */
  ownEmulator: boolean;
  /** What load and sizing expect of the tokens where they send. */
  expect: Expectations;
}

/** Settings once a target is known: the configured one, or the built-in emulator's. */
export type TargetSettings = Settings & { target: Target };

export interface ResolveOptions {
  /** Credentials referenced, never read (`k8s`): variables stand for this placeholder. */
  credentialPlaceholder?: string;
}

/**
 * Async only for the config reader: yaml and zod load when there is a file to read (about 90 ms of
 * a CLI start), so a run without a config, against the built-in emulator, does not pay for them.
 */
export async function resolveSettings(
  flags: SettingFlags,
  processEnv: NodeJS.ProcessEnv,
  cwd: string,
  options: ResolveOptions = {},
): Promise<Settings> {
  const placeholder = options.credentialPlaceholder;
  const env =
    placeholder === undefined
      ? processEnv
      : { ...processEnv, CES_CLIENT_ID: placeholder, CES_CLIENT_SECRET: placeholder };
  const configPath =
    flags.config ?? (existsSync(resolvePath(cwd, DEFAULT_CONFIG_FILE)) ? DEFAULT_CONFIG_FILE : undefined);
  const absoluteConfig = configPath ? resolvePath(cwd, configPath) : null;
  const loaded = absoluteConfig
    ? (await import('./load.js')).readConfigFile(absoluteConfig, env, { credentialPlaceholder: placeholder })
    : { config: {}, warnings: [], credentialVariables: {} };
  const file: ConfigFile = loaded.config;
  const configDir = absoluteConfig ? dirname(absoluteConfig) : cwd;

  const environments = file.environments ?? {};
  const name = flags.env ?? file.target ?? 'sandbox';
  const configured = environments[name];
  refuseUnknownEnvironment(name, flags, { environments, configPath, fromFile: absoluteConfig !== null });
  const requestTimeoutS = flags['request-timeout'] ?? file.request_timeout_s ?? DEFAULTS.requestTimeoutS;
  const targets: TargetInputs = {
    name,
    flags,
    configPath,
    configDir,
    caFromFlag: flags.ca ? readCa(resolvePath(cwd, flags.ca), '--ca') : undefined,
    requestTimeoutS,
  };
  const target: Target | null = configured
    ? configuredTarget(name, configured, targets)
    : flags['base-url']
      ? baseUrlTarget(flags['base-url'], env, targets)
      : null;
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
    .map(([n, e]) => configuredTarget(n, e, targets));
  if (target) refuseSharedUrl([target, ...others]);

  const business = {
    evaluation: withDefaults(file.business?.evaluation),
    ach_transactions: withDefaults(file.business?.ach_transactions),
  };

  const ledger = flags.ledger ?? file.ledger ?? DEFAULT_LEDGER_FILE;
  const history = flags.history ?? file.history ?? DEFAULT_HISTORY_FILE;
  // No target: the built-in emulator, whose first environment is sandbox, with its own defaults.
  const defaults = target ? DEFAULTS : { ...DEFAULTS, ...EMBEDDED };
  const maxRps = flags['max-rps'] ?? file.rate_limit?.max_rps ?? DEFAULTS.maxRps;
  const named = loaded.credentialVariables[name];
  const expect: Expectations = {
    tokenLifetimeS: flags['token-lifetime'] ?? file.expect?.token_lifetime_s ?? defaults.tokenLifetimeS,
    expiryWaitS: flags['expiry-wait'] ?? file.expect?.expiry_wait_s ?? defaults.expiryWaitS,
    clockToleranceS: flags['clock-tolerance'] ?? file.expect?.clock_tolerance_s ?? defaults.clockToleranceS,
  };
  const ownEmulator = !target && flags['token-lifetime'] === undefined;
  return {
    target,
    others,
    expect,
    business,
    production: {
      maxRequests: file.production?.max_requests ?? DEFAULTS.productionMaxRequests,
      business: productionCallsOf(file),
    },
    rateLimit: {
      endpoint: file.rate_limit?.endpoint ?? DEFAULTS.rateLimitEndpoint,
      maxRps,
      maxRequests: file.rate_limit?.max_requests ?? DEFAULTS.maxRequests,
      ...(flags['max-duration'] !== undefined ? { maxDurationS: flags['max-duration'] } : {}),
      ...horizonOf(flags.horizon ?? file.rate_limit?.horizon_s),
      ...fleetOf(flags.fleet ?? file.rate_limit?.fleet),
      recoveryWaitS: defaults.recoveryWaitS,
      maxRetryAfterS: file.rate_limit?.max_retry_after_s ?? DEFAULTS.maxRetryAfterS,
      limitWaitS: flags['limit-wait'] ?? file.rate_limit?.limit_wait_s ?? DEFAULTS.limitWaitS,
      // Load and rate-limit probing of production need the explicit flag (contract: safety).
      probingAllowed: !isProduction(target ?? { environment: name }) || flags['allow-production-load'] === true,
      ...secondClientOf(file),
    },
    ledgerPath:
      ledger === 'off' ? null : resolvePath(absoluteConfig && !flags.ledger && file.ledger ? configDir : cwd, ledger),
    historyPath:
      history === 'off'
        ? null
        : resolvePath(absoluteConfig && !flags.history && file.history ? configDir : cwd, history),
    regressions: { ...DEFAULT_REGRESSION_POLICY, ...file.regressions },
    load: {
      rate: flags.rate ?? file.load?.rate ?? DEFAULTS.loadRate,
      overLimitRate: file.load?.over_limit_rate ?? (target ? Math.min(maxRps, 100) : EMBEDDED.overLimitRate),
      durationS: flags.duration ?? file.load?.duration_s,
      vus: flags.vus ?? file.load?.vus ?? DEFAULTS.vus,
      thresholds: file.load?.thresholds,
      outputs: file.load?.outputs ?? [],
      segments: flags.segments ?? DEFAULTS.segments,
      given: {
        rate: (flags.rate ?? file.load?.rate) !== undefined,
        overLimitRate: file.load?.over_limit_rate !== undefined,
      },
    },
    configPath: absoluteConfig,
    environmentName: name,
    // A --base-url without a config entry takes its credentials from CES_CLIENT_ID/CES_CLIENT_SECRET.
    credentialVariables: {
      clientId: (configured && named?.clientId) || 'CES_CLIENT_ID',
      clientSecret: (configured && named?.clientSecret) || 'CES_CLIENT_SECRET',
    },
    warnings: loaded.warnings,
    requestTimeoutS,
    ...(flags['verbose-bodies'] ? { verboseBodies: true } : {}),
    sizing: { ownEmulator, expect: ownEmulator ? { ...expect, tokenLifetimeS: DEFAULTS.tokenLifetimeS } : expect },
  };
}

/**
 * The settings with the built-in emulator as the target: `environments` are its listeners, the
 * first (sandbox) the target, the others its isolation partners. The expectations, recovery wait
 * and over-limit rate were already resolved for it (EMBEDDED).
 */
export function embedded(settings: Settings, environments: [Target, ...Target[]]): TargetSettings {
  const named = environments.findIndex((t) => t.environment === settings.environmentName);
  const ordered = named > 0 ? [environments[named]!, ...environments.filter((_, i) => i !== named)] : environments;
  const [target, ...others] = ordered.map((t) => ({
    ...t,
    requestTimeoutS: settings.requestTimeoutS,
    ...(settings.verboseBodies ? { verboseBodies: true } : {}),
  }));
  return { ...settings, target: target!, others, ledgerPath: null, historyPath: null };
}

/** rate_limit.second_client as credentials, when the file names one. */
function secondClientOf(file: ConfigFile): { secondClient?: Credentials } {
  const second = file.rate_limit?.second_client;
  return second ? { secondClient: { clientId: second.client_id, clientSecret: second.client_secret } } : {};
}

function withDefaults(call: { method?: HttpMethod; body?: unknown } | undefined): BusinessCall {
  return { method: call?.method ?? 'POST', body: call?.body ?? {} };
}

/** The business endpoints whose config allows them on production, with production's payload. */
function productionCallsOf(file: ConfigFile): Partial<BusinessCalls> {
  const out: Partial<BusinessCalls> = {};
  for (const name of BUSINESS_ENDPOINTS) {
    const allowed = file.business?.[name]?.production;
    if (allowed) out[name] = { method: allowed.method, body: allowed.body };
  }
  return out;
}

/** rate_limit.fleet only when asked for: a run without it sizes one client, as before. */
const fleetOf = (instances: number | undefined): { fleet?: number } =>
  instances === undefined ? {} : { fleet: instances };

/** rate_limit.horizon_s only when asked for: otherwise the command's own default (long in `ratelimit`, short in `run`). */
const horizonOf = (horizonS: number | undefined): { horizonS?: number } => (horizonS === undefined ? {} : { horizonS });
