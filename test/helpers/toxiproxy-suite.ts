// The hooks every describe block across toxiproxy needs (test/helpers/toxiproxy.ts), apart from it
// so that the bench can import toxiproxy.ts without vitest.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { BUILD_TIMEOUT_MS, provisionToxiproxy, type RunningToxiproxy } from './toxiproxy.js';

/** What a suite across toxiproxy holds between its hooks. */
export interface ToxiproxySuite {
  binary: string;
  /** A scratch folder for the suite, removed after it. */
  cwd: string;
  /** Stopped after each test. */
  proxy?: RunningToxiproxy;
  emulator?: { close(): Promise<void> };
}

/**
 * A describe block's hooks for tests across toxiproxy: the binary (built on first use; required on
 * CI, where `missing` fails the suite), a scratch folder, and each test's proxy and emulator stopped.
 */
export function toxiproxySuite(missing: string | undefined, what: string, prefix: string): ToxiproxySuite {
  const suite = { binary: '', cwd: '' } as ToxiproxySuite;
  beforeAll(async () => {
    if (missing) throw new Error(`toxiproxy is required on CI for the ${what}: ${missing}`);
    suite.binary = await provisionToxiproxy();
    suite.cwd = await mkdtemp(join(tmpdir(), prefix));
  }, BUILD_TIMEOUT_MS + 60_000);
  afterEach(async () => {
    await suite.proxy?.stop();
    await suite.emulator?.close();
  });
  afterAll(async () => {
    if (suite.cwd) await rm(suite.cwd, { recursive: true, force: true });
  });
  return suite;
}
