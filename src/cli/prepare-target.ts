// Shared by the commands that talk to a target: resolve the settings, start the built-in emulator
// when nothing names a target, and make sure the target is reachable and trusted (exit 3 if not).

import { HarnessError, usageError } from '../errors.js';
import { resolveSettings, probingAllowed, type Settings } from '../config/resolve.js';
import type { Target } from '../config/target.js';
import type { Emulator } from '../emulator/index.js';
import { FAULTS, isFaultName } from '../emulator/faults/index.js';
import type { Redactor } from '../http/redact.js';
import type { Expectations, RateLimitSettings } from '../config/check-settings.js';
import { Ledger } from '../runner/ledger.js';
import { preflight } from '../runner/preflight.js';
import type { Options } from './flags.js';
import type { Terminal } from './terminal.js';

// The built-in emulator hands out short-lived tokens so that `npm start` proves expiry for real
// in seconds; the expectations below follow from it. 8 s, not less: every time edge is judged with
// a second for expires_at's rounding, the clock tolerance and the request's window on each side
// (src/time/expiry-edges.ts), and a lifetime half the promised one (the wrong-lifetime fault)
// must still lie clearly outside that, even when a saturated CPU stretches the window. The expiry
// wait covers the lifetime plus the rounding and tolerance after it.
export const EMBEDDED = { tokenTtlS: 8, expiryWaitS: 12, clockToleranceS: 1 } as const;

export interface PreparedTarget {
  settings: Settings;
  target: Target;
  /**
   * Where load and rate-limit sizing go. For a real service, the target itself. For the built-in
   * emulator, a second instance (same faults) with the service's real 24-hour tokens: a token
   * turning over every few seconds, as the checks want it, would distort every load figure with
   * re-fetches and 401s; expiry itself is proven by the checks.
   */
  probeTarget(): Promise<{ target: Target; expect: Expectations }>;
  others: Target[];
  expect: Expectations;
  rateLimit: RateLimitSettings;
  ledger: Ledger;
  emulator: Emulator | null;
  close(): Promise<void>;
}

export async function prepareTarget(options: Options, redactor: Redactor, terminal: Terminal): Promise<PreparedTarget> {
  const settings = resolveSettings(
    {
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options['base-url'] !== undefined ? { baseUrl: options['base-url'] } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options['token-lifetime'] !== undefined ? { tokenLifetimeS: options['token-lifetime'] } : {}),
      ...(options['expiry-wait'] !== undefined ? { expiryWaitS: options['expiry-wait'] } : {}),
      ...(options['clock-tolerance'] !== undefined ? { clockToleranceS: options['clock-tolerance'] } : {}),
      ...(options['allow-production-load'] !== undefined ? { allowProductionLoad: options['allow-production-load'] } : {}),
      ...(options.ledger !== undefined ? { ledger: options.ledger } : {}),
    },
    process.env,
    process.cwd(),
  );
  for (const warning of settings.warnings) terminal.err(`ces-harness: warning: ${warning}`);
  const faults = options.fault ?? [];
  const unknownFault = faults.find((f) => !isFaultName(f));
  if (unknownFault) throw usageError(`unknown fault "${unknownFault}"; known: ${FAULTS.map((f) => f.name).join(', ')}`);

  let emulator: Emulator | null = null;
  let target: Target;
  let others: Target[];
  let expect = settings.expect;
  let ledger: Ledger;
  if (settings.target) {
    if (faults.length) throw usageError('--fault applies only to the built-in emulator; drop --fault, or drop --base-url/--config to test the emulator');
    target = settings.target;
    others = settings.others;
    ledger = Ledger.open(settings.ledgerPath);
    for (const warning of ledger.warnings) terminal.err(warning);
  } else {
    const tokenTtlS = options['token-lifetime'] ?? EMBEDDED.tokenTtlS;
    // Loaded only when needed: a run against a real target never uses the emulator's code.
    const { createEmulator } = await import('../emulator/index.js');
    emulator = await createEmulator({ port: 0, environments: ['sandbox', 'production'], tokenTtlS, faults: faults.filter(isFaultName) });
    const [first, ...rest] = emulator.environments.map(
      (e): Target => ({ environment: e.name, baseUrl: e.url, credentials: e.credentials, caPem: emulator!.caPem, caFile: emulator!.caFile, emulated: true }),
    );
    target = first!;
    others = rest;
    expect = {
      tokenLifetimeS: tokenTtlS,
      expiryWaitS: options['expiry-wait'] ?? EMBEDDED.expiryWaitS,
      clockToleranceS: options['clock-tolerance'] ?? EMBEDDED.clockToleranceS,
    };
    // A ledger of emulator tokens would be useless: every start has new credentials and port.
    ledger = Ledger.disabled();
    const faultNote = faults.length ? ` with fault(s) ${faults.join(', ')}` : '';
    terminal.err(`no target configured (no ${'ces-harness.yaml'}, --config or --base-url): testing the built-in emulator at ${target.baseUrl}${faultNote}`);
  }
  for (const t of [target, ...others]) redactor.addSecret(t.credentials.clientSecret, t.credentials.clientId);
  try {
    await preflight(target);
  } catch (err) {
    await emulator?.close();
    throw err;
  }
  let second: Promise<{ emulator: Emulator; target: Target }> | undefined;
  const probeTarget = async () => {
    if (!emulator || options['token-lifetime'] !== undefined) return { target, expect };
    second ??= (async () => {
      const { createEmulator } = await import('../emulator/index.js');
      const e = await createEmulator({ port: 0, environments: ['sandbox'], faults: faults.filter(isFaultName) });
      return { emulator: e, target: { ...target, baseUrl: e.url, credentials: e.credentials, caPem: e.caPem, caFile: e.caFile } };
    })();
    const { target: t } = await second;
    redactor.addSecret(t.credentials.clientSecret, t.credentials.clientId);
    return { target: t, expect: { ...expect, tokenLifetimeS: 86_400 } };
  };
  return {
    settings,
    target,
    probeTarget,
    others,
    expect,
    rateLimit: {
      ...settings.rateLimit,
      // The built-in emulator's bucket refills within a second or two; a real limiter may use
      // minute windows, so a real service gets the full minute a patient client would give it.
      recoveryWaitS: target.emulated ? EMULATOR_RECOVERY_WAIT_S : RECOVERY_WAIT_S,
      probingAllowed: probingAllowed(settings, target),
    },
    ledger,
    emulator,
    close: async () => {
      await emulator?.close();
      if (second) await (await second).emulator.close();
    },
  };
}

const RECOVERY_WAIT_S = 60;
const EMULATOR_RECOVERY_WAIT_S = 15;

export function refuseProductionLoad(prepared: PreparedTarget, what: string): void {
  if (!prepared.rateLimit.probingAllowed) {
    throw new HarnessError('PRODUCTION_REFUSED', `${what} against ${prepared.target.environment} is refused; pass --allow-production-load if you really mean to load production`);
  }
}
