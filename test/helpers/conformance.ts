// Runs the real check catalogue against a real emulator on 127.0.0.1 port 0, as `check` does,
// minus the terminal and the report folder.

import { CHECKS } from '../../checks/index.js';
import { EMBEDDED } from '../../src/config/resolve.js';
import {
  createEmulator,
  type Emulator,
  type EmulatorOptions,
  type FaultName,
  type ProfileName,
} from '../../src/emulator/index.js';
import { Redactor } from '../../src/http/redact.js';
import type { Target } from '../../src/config/target.js';
import type { CheckResult } from '../../src/report/model.js';
import { runConformance } from '../../src/runner/conformance.js';
import { createContext, type OpenContext } from '../../src/runner/context.js';
import type { RateLimitSettings } from '../../src/config/check-settings.js';
import { Ledger } from '../../src/runner/ledger.js';
import { selectChecks } from '../../src/runner/run-checks.js';
import type { Clock } from '../../src/time/clock.js';

export interface EmulatedRun {
  results: CheckResult[];
  emulator: Emulator;
}

export interface RunOptions {
  faults?: FaultName[];
  /** Conformant variations the faults apply on top of (a fault that needs JWTs needs `jwt`). */
  profiles?: ProfileName[];
  tokenTtlS?: number;
  /** Wait for expiry in-process (about the token lifetime, on `clock`). */
  waitForExpiry?: boolean;
  /** The clock the emulator and the run share (a virtual one makes the waits instant); the system's by default. */
  clock?: Clock;
  only?: string[];
  skip?: string[];
  rateLimit?: { rps: number; burst: number };
  /** Any limiter model (or set) the emulator enforces instead of the `rateLimit` bucket. */
  limiter?: EmulatorOptions['limiter'];
  redactor?: Redactor;
  /** --limit-wait: how long one request of the checks may wait on the rate limit (60 s unless given). */
  limitWaitS?: number;
  /** --clock-tolerance (the built-in emulator's 1 s unless given). */
  clockToleranceS?: number;
  /** Behaviour changes of the emulator (a service that refuses tokens a little early, say). */
  overrides?: EmulatorOptions['overrides'];
  /** Collects the lines of checks that could not test what was asked (the run's "not tested"). */
  untested?: string[];
}

export function targetsOf(emulator: Emulator): Target[] {
  return emulator.environments.map((e) => ({
    environment: e.name,
    baseUrl: e.url,
    credentials: e.credentials,
    caPem: emulator.caPem,
    caFile: emulator.caFile,
    emulated: true,
  }));
}

export async function checkEmulator(options: RunOptions = {}): Promise<CheckResult[]> {
  // With expiry: long enough that "still valid just before expires_at" can be probed after the
  // clock tolerance. Without: long enough that no token turns over (and stalls a probe) mid-run.
  const ttl = options.tokenTtlS ?? (options.waitForExpiry ? EMBEDDED.tokenLifetimeS : 30);
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox', 'production'],
    tokenTtlS: ttl,
    faults: options.faults ?? [],
    profiles: options.profiles ?? [],
    rateLimit: options.rateLimit ?? { rps: 50, burst: 50 },
    ...(options.limiter ? { limiter: options.limiter } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    ...(options.clock ? { now: options.clock.now } : {}),
  });
  try {
    const [target, ...others] = targetsOf(emulator);
    const { selected } = selectChecks(CHECKS, options.only ?? [], options.skip ?? []);
    return await runConformance({
      target: target!,
      others,
      expect: {
        tokenLifetimeS: ttl,
        expiryWaitS: options.waitForExpiry ? ttl + 4 : 0,
        clockToleranceS: options.clockToleranceS ?? EMBEDDED.clockToleranceS,
      },
      business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
      // Fast enough to find the emulator's 50/s limit, or its absence, in two seconds; slow enough that two busy test workers on two cores still reach the rate.
      rateLimit: {
        endpoint: 'tokens.validate',
        maxRps: 120,
        maxRequests: 240,
        recoveryWaitS: 15,
        maxRetryAfterS: 120,
        probingAllowed: true,
        ...(options.limitWaitS !== undefined ? { limitWaitS: options.limitWaitS } : {}),
      },
      ledger: Ledger.disabled(),
      checks: selected,
      redactor: options.redactor ?? new Redactor(),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.untested ? { onUntested: (line: string) => options.untested!.push(line) } : {}),
    });
  } finally {
    await emulator.close();
  }
}

/**
 * A check context on the emulator's first environment, as `check` builds one, with 1 h tokens (no
 * token turns over mid-test) and the rate-limit settings given, for tests that run single checks;
 * on `clock` when given (the one the emulator was made with).
 */
/** Rate-limit settings for a context that runs one check, not the rate-limit family. */
export const ONE_CHECK_RATE_LIMIT: RateLimitSettings = {
  endpoint: 'tokens.validate',
  maxRps: 50,
  maxRequests: 100,
  recoveryWaitS: 15,
  maxRetryAfterS: 120,
  probingAllowed: true,
};

export function emulatorContext(
  emulator: Emulator,
  rateLimit: RateLimitSettings,
  clock?: Clock,
  tokenLifetimeS = 3_600,
): OpenContext {
  const [target, ...others] = targetsOf(emulator);
  return createContext({
    target: target!,
    others,
    expect: { tokenLifetimeS, expiryWaitS: 0, clockToleranceS: 1 },
    business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
    rateLimit,
    ledger: Ledger.disabled(),
    ...(clock ? { clock } : {}),
  });
}
