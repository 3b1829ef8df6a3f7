// When no target is configured, `check` and `run` test the built-in emulator, in a worker thread.
// That thread's start (Node's TLS and HTTP modules, the emulator's bundle) is started here, before
// the command's own modules load, so the two loads share the two cores instead of taking turns;
// prepareTarget hands the options to it once they are resolved. The guess is the one
// resolveSettings makes (no --base-url, no --config, no ces-harness.yaml): when it is wrong, or the
// run ends before the emulator starts (a usage error), the spare is stopped unused.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SpareWorker } from '../emulator/worker/host.js';
import type { Options } from './flags.js';
import type { CliIo } from './io.js';

export async function emulatorSpare(
  options: Options,
  io: Pick<CliIo, 'cwd' | 'clock'>,
): Promise<SpareWorker | undefined> {
  // On a clock of its own (a test's), the emulator runs in this thread (prepare-target.ts).
  if (options['base-url'] !== undefined || options.config !== undefined || io.clock) return undefined;
  const [{ DEFAULT_CONFIG_FILE }, { spareEmulatorWorker }] = await Promise.all([
    import('../config/resolve.js'),
    import('../emulator/worker/host.js'),
  ]);
  return existsSync(resolve(io.cwd, DEFAULT_CONFIG_FILE)) ? undefined : spareEmulatorWorker();
}
