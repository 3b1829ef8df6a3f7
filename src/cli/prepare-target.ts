// Shared by the commands that talk to a target: resolve the settings, start the built-in emulator
// when nothing names a target, and make sure the target is reachable and trusted (exit 3 if not).

import { usageError } from '../errors.js';
import {
  DEFAULT_CONFIG_FILE,
  EMBEDDED_ENVIRONMENTS,
  embedded,
  resolveSettings,
  type SettingFlags,
  type TargetSettings,
} from '../config/resolve.js';
import type { Emulator } from '../emulator/index.js';
import type { SpareWorker } from '../emulator/worker/host.js';
import type { WorkerEmulatorOptions } from '../emulator/worker/protocol.js';
import type { Clock } from '../time/clock.js';
import { FAULTS, isFaultName, type FaultName } from '../emulator/faults/index.js';
import { PROFILES, isProfileName, type ProfileName } from '../emulator/profiles/index.js';
import type { Redactor } from '../http/redact.js';
import { LEDGER_FIX, Ledger } from '../runner/ledger.js';
import type { SizingTarget, StageTarget } from '../stages/run-io.js';
import type { Target } from '../config/target.js';
import { HISTORY_FIX, HistoryStore } from '../history/store.js';
import { ensureWritableFileLocation, removeEmptyDirs } from '../fs/writable.js';
import { preflight, type PreflightRequest } from '../runner/preflight.js';
import type { Terminal } from './terminal.js';
import type { CliIo } from './io.js';

/**
 * The resolved settings and what they hold open: the ledger, the built-in emulator (and, started
 * on first use, its long-lived instances that load and rate-limit sizing go to: settings.sizing).
 */
export interface PreparedTarget extends Omit<StageTarget, 'reportDir' | 'productionGate'> {
  /** The stored runs of earlier runs, read (and any refusal found) before the first request. */
  history: HistoryStore;
  /** The preflight's request: production's audit trail lists it (auditPreflight). */
  preflight: PreflightRequest;
  /**
   * Stops the built-in emulator and its instances, once: called when the stages are done, so their
   * threads end while the report is written rather than after it. close() awaits the same stop.
   */
  stopEmulators(): Promise<void>;
  close(): Promise<void>;
}

/** The flags prepareTarget reads: those of the resolution, and the emulator's faults. */
export type TargetFlags = SettingFlags & { fault?: string[]; profile?: string[] };

export async function prepareTarget(
  flags: TargetFlags,
  redactor: Redactor,
  terminal: Terminal,
  io: Pick<CliIo, 'env' | 'cwd' | 'clock'>,
  /** Told the settings before the preflight's request: a place to write found unusable there costs no request. */
  beforeRequests?: (settings: TargetSettings) => void,
  /** A worker thread already loading the emulator's code (emulator-spare.ts): the built-in emulator starts in it. */
  emulatorSpare?: SpareWorker,
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
    // Its guess was wrong (a target after all): the spare thread is not needed for the run.
    await emulatorSpare?.discard();
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
    const started = await startBuiltIn(
      {
        port: 0,
        environments: [...EMBEDDED_ENVIRONMENTS],
        tokenTtlS: resolved.expect.tokenLifetimeS,
        faults,
        profiles,
      },
      io.clock,
      emulatorSpare,
    );
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
  const { target, others } = settings;
  for (const t of [target, ...others]) redactor.addSecret(t.credentials.clientSecret, t.credentials.clientId);
  // Every file the run writes is checked before the preflight sends its request (the report
  // folder's were checked before this): the ledger, and the history.
  const created: string[] = [];
  let reached: PreflightRequest;
  try {
    if (ledger.path !== null)
      created.push(...ensureWritableFileLocation(ledger.path, { what: 'ledger', fix: LEDGER_FIX }, 0o700));
    if (history.path !== null)
      created.push(...ensureWritableFileLocation(history.path, { what: 'history', fix: HISTORY_FIX }, 0o700));
    beforeRequests?.(settings);
    reached = await preflight(target);
  } catch (err) {
    removeEmptyDirs(created);
    await emulator?.close();
    throw err;
  }
  // Every instance started for load and sizing, closed with the run.
  const instances: Array<Promise<{ emulator: Emulator; sizing: SizingTarget }>> = [];
  const startInstance = () => {
    const started = (async () => {
      // Two clients, so the probe's scope phase has a second one to tell per-client from shared.
      // A worker each: `npm start`'s load and checks side by side then use both cores.
      const e = await startBuiltIn({ port: 0, environments: ['sandbox'], faults, profiles, clients: 2 }, io.clock);
      const secondClient = e.environments[0]?.clients[1];
      for (const c of [e.credentials, ...(secondClient ? [secondClient] : [])])
        redactor.addSecret(c.clientSecret, c.clientId);
      return {
        emulator: e,
        sizing: {
          target: { ...target, baseUrl: e.url, credentials: e.credentials, caPem: e.caPem, caFile: e.caFile },
          ...(secondClient ? { secondClient } : {}),
        },
      };
    })();
    instances.push(started);
    return started.then((s) => s.sizing);
  };
  const ownInstances = emulator !== null && settings.sizing.ownEmulator;
  let second: Promise<SizingTarget> | undefined;
  // The preflight's request reached the target itself (not an instance started for sizing).
  const sentBefore = reached.reached === 'answer' ? [reached.sentAt] : [];
  const probeTarget = async (): Promise<SizingTarget> =>
    ownInstances ? (second ??= startInstance()) : { target, sentBefore };
  let stopping: Promise<void> | undefined;
  const stopEmulators = () =>
    (stopping ??= (async () => {
      await emulator?.close();
      // An instance that failed to start has nothing to close.
      await Promise.all(
        instances.map((i) =>
          i.then(
            (s) => s.emulator.close(),
            () => undefined,
          ),
        ),
      );
    })());
  return {
    settings,
    probeTarget,
    ...(ownInstances ? { isolatedTarget: startInstance } : {}),
    ledger,
    history,
    preflight: reached,
    stopEmulators,
    close: async () => {
      // Only what is still empty: a folder holding the ledger or the history stays.
      removeEmptyDirs(created);
      await stopEmulators();
    },
  };
}

/**
 * The built-in emulator, loaded only when needed (a run against a real target never uses its
 * code). In a worker thread: this one carries the client side of every handshake, the emulator
 * the other. On a clock the run was given (a test's virtual one), in this thread on that clock
 * instead: the emulator's tokens and limiter must read the time the run waits on, and a virtual
 * clock cannot cross into a worker.
 */
async function startBuiltIn(
  options: WorkerEmulatorOptions,
  clock: Clock | undefined,
  spare?: SpareWorker,
): Promise<Emulator> {
  if (clock) {
    await spare?.discard();
    const { createEmulator } = await import('../emulator/index.js');
    return createEmulator({ ...options, now: clock.now });
  }
  const { startEmulatorWorker } = await import('../emulator/worker/host.js');
  return startEmulatorWorker(options, spare);
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
