// Shared by the commands that talk to a target: resolve the settings, start the built-in emulator
// when nothing names a target, and make sure the target is reachable and trusted (exit 3 if not).

import type { Credentials } from '../spec/credentials.js';
import { HarnessError, usageError } from '../errors.js';
import {
  DEFAULT_CONFIG_FILE,
  EMBEDDED_ENVIRONMENTS,
  embedded,
  resolveSettings,
  type SettingFlags,
  type TargetSettings,
} from '../config/resolve.js';
import { isProduction, type Target } from '../config/target.js';
import { notAllowedOnProduction } from '../http/production-gate.js';
import { businessCallsFor } from '../runner/production-calls.js';
import { BUSINESS_ENDPOINTS, type BusinessCalls, type BusinessEndpoint } from '../spec/endpoints.js';
import type { Expectations } from '../config/check-settings.js';
import type { Emulator } from '../emulator/index.js';
import { FAULTS, isFaultName, type FaultName } from '../emulator/faults/index.js';
import { PROFILES, isProfileName, type ProfileName } from '../emulator/profiles/index.js';
import type { Redactor } from '../http/redact.js';
import { Ledger } from '../runner/ledger.js';
import { HistoryStore } from '../history/store.js';
import { preflight } from '../runner/preflight.js';
import type { Terminal } from './terminal.js';
import type { CliIo } from './io.js';

/** The resolved settings and what they hold open: the ledger, the built-in emulator. */
export interface PreparedTarget {
  settings: TargetSettings;
  /**
   * Where load and rate-limit sizing go. For a real service, the target itself. For the built-in
   * emulator, a second instance (same faults) with the service's real 24-hour tokens: a token
   * turning over every few seconds, as the checks want it, would distort every load figure with
   * re-fetches and 401s; expiry itself is proven by the checks.
   */
  probeTarget(): Promise<{ target: Target; expect: Expectations; secondClient?: Credentials }>;
  ledger: Ledger;
  /** The stored runs of earlier runs, read (and any refusal found) before the first request. */
  history: HistoryStore;
  close(): Promise<void>;
}

/** The flags prepareTarget reads: those of the resolution, and the emulator's faults. */
export type TargetFlags = SettingFlags & { fault?: string[]; profile?: string[] };

export async function prepareTarget(
  flags: TargetFlags,
  redactor: Redactor,
  terminal: Terminal,
  io: Pick<CliIo, 'env' | 'cwd'>,
): Promise<PreparedTarget> {
  const resolved = await resolveSettings(flags, io.env, io.cwd);
  for (const warning of resolved.warnings) terminal.err(`ces-harness: warning: ${warning}`);
  const faults = validFaults(flags.fault ?? []);
  const profiles = validProfiles(flags.profile ?? []);

  let emulator: Emulator | null = null;
  let settings: TargetSettings;
  let ledger: Ledger;
  let history = HistoryStore.disabled();
  if (resolved.target) {
    if (faults.length)
      throw usageError(
        '--fault applies only to the built-in emulator; drop --fault, or drop --base-url/--config to test the emulator',
      );
    if (profiles.length)
      throw usageError(
        '--profile applies only to the built-in emulator; drop --profile, or drop --base-url/--config to test the emulator',
      );
    settings = { ...resolved, target: resolved.target };
    ledger = Ledger.open(settings.ledgerPath);
    for (const warning of ledger.warnings) terminal.err(warning);
    history = HistoryStore.open(settings.historyPath);
    for (const warning of history.warnings) terminal.err(`ces-harness: warning: ${warning}`);
  } else {
    // Loaded only when needed: a run against a real target never uses the emulator's code.
    const { createEmulator } = await import('../emulator/index.js');
    const started = await createEmulator({
      port: 0,
      environments: [...EMBEDDED_ENVIRONMENTS],
      tokenTtlS: resolved.expect.tokenLifetimeS,
      faults,
      profiles,
    });
    emulator = started;
    const [first, ...rest] = started.environments.map((e): Target => ({
      environment: e.name,
      baseUrl: e.url,
      credentials: e.credentials,
      caPem: started.caPem,
      caFile: started.caFile,
      emulated: true,
    }));
    settings = embedded(resolved, [first!, ...rest]);
    // A ledger of emulator tokens would be useless: every start has new credentials and port.
    ledger = Ledger.disabled();
    const faultNote = [
      faults.length ? ` with fault(s) ${faults.join(', ')}` : '',
      profiles.length ? ` with profile(s) ${profiles.join(', ')}` : '',
    ].join('');
    terminal.err(
      `no target configured (no ${DEFAULT_CONFIG_FILE}, --config or --base-url): testing the built-in emulator at ${settings.target.baseUrl}${faultNote}`,
    );
  }
  const { target, others, expect } = settings;
  for (const t of [target, ...others]) redactor.addSecret(t.credentials.clientSecret, t.credentials.clientId);
  try {
    await preflight(target);
  } catch (err) {
    await emulator?.close();
    throw err;
  }
  let second: Promise<{ emulator: Emulator; target: Target; secondClient: Credentials | undefined }> | undefined;
  const probeTarget = async () => {
    // A lifetime the user gave is the one they want the load to see, short or not.
    if (!emulator || flags['token-lifetime'] !== undefined) return { target, expect };
    second ??= (async () => {
      const { createEmulator } = await import('../emulator/index.js');
      // Two clients, so the probe's scope phase has a second one to tell per-client from shared.
      const e = await createEmulator({ port: 0, environments: ['sandbox'], faults, profiles, clients: 2 });
      return {
        emulator: e,
        target: { ...target, baseUrl: e.url, credentials: e.credentials, caPem: e.caPem, caFile: e.caFile },
        secondClient: e.environments[0]?.clients[1],
      };
    })();
    const { target: t, secondClient } = await second;
    for (const c of [t.credentials, ...(secondClient ? [secondClient] : [])])
      redactor.addSecret(c.clientSecret, c.clientId);
    return { target: t, expect: { ...expect, tokenLifetimeS: 86_400 }, ...(secondClient ? { secondClient } : {}) };
  };
  return {
    settings,
    probeTarget,
    ledger,
    history,
    close: async () => {
      await emulator?.close();
      if (second) await (await second).emulator.close();
    },
  };
}

/** The --fault names, each known to the emulator (shared with `serve`). */
export function validFaults(names: string[]): FaultName[] {
  const unknown = names.find((f) => !isFaultName(f));
  if (unknown) throw usageError(`unknown fault "${unknown}"; known: ${FAULTS.map((f) => f.name).join(', ')}`);
  return names.filter(isFaultName);
}

/** The --profile names, each known to the emulator (shared with `serve`). */
export function validProfiles(names: string[]): ProfileName[] {
  const unknown = names.find((p) => !isProfileName(p));
  if (unknown) throw usageError(`unknown profile "${unknown}"; known: ${PROFILES.map((p) => p.name).join(', ')}`);
  return names.filter(isProfileName);
}

export function refuseProductionLoad(settings: TargetSettings, what: string): void {
  if (!settings.rateLimit.probingAllowed) {
    throw new HarnessError(
      'PRODUCTION_REFUSED',
      `${what} against ${settings.target.environment} is refused; pass --allow-production-load if you really mean to load production`,
    );
  }
}

/**
 * The business calls load or a rate-limit probe may send with valid tokens. On production, even
 * with --allow-production-load, only endpoints opted in (business.<name>.production), with
 * production's payload: the sandbox payload there may be a real evaluation or transaction. An
 * endpoint the run needs and production does not allow is refused before the first request.
 */
export function businessForLoad(
  settings: TargetSettings,
  what: string,
  needed: readonly BusinessEndpoint[],
): BusinessCalls {
  if (!isProduction(settings.target)) return settings.business;
  const missing = needed.filter((name) => !settings.production.business[name]);
  if (missing.length)
    throw new HarnessError(
      'PRODUCTION_REFUSED',
      `${what} against ${settings.target.environment} calls ${missing.map((n) => `/v1/${n}`).join(' and ')} with valid tokens; ${notAllowedOnProduction(missing).replace(/^not tested on production \(|\)$/g, '')}`,
    );
  return businessCallsFor(settings);
}

/** The business endpoint a rate-limit endpoint (rate_limit.endpoint) calls, if any. */
export const businessOfRateLimit = (endpoint: string): BusinessEndpoint[] =>
  BUSINESS_ENDPOINTS.filter((name) => endpoint === `business.${name}`);

/** The business endpoints k6 scenarios call: throughput both, rate-limit rate_limit.endpoint's. */
export function businessNeededBy(scenarios: readonly string[], rateLimitEndpoint: string): BusinessEndpoint[] {
  return BUSINESS_ENDPOINTS.filter(
    (name) =>
      scenarios.includes('throughput') ||
      (scenarios.includes('rate-limit') && businessOfRateLimit(rateLimitEndpoint).includes(name)),
  );
}
