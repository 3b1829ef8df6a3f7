// The emulator a real limiter (nginx limit_req, HAProxy) fronts for a whole test file: its own
// limiter off, since the limiter in front is the ground truth, and its TLS files in a temporary
// folder the limiter's configuration points at, removed after the file.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

export interface LimitedUpstream {
  /** The emulator behind the limiter; set once the file's beforeAll has run. */
  emulator: Emulator;
  /** Its certificate folder, for the limiter's upstream TLS. */
  tlsDir: string;
}

/**
 * Registers the file's beforeAll and afterAll that start and stop the upstream (`options.workMs`: a
 * service slower than the limiter in front of it). `missing` (why the
 * real limiter is absent) fails every test of the file with that reason: on CI a missing real part
 * is never a silent pass (the caller skips the file off CI instead).
 */
export function limitedUpstream(
  name: string,
  missing: string | undefined,
  required: string,
  options: Pick<EmulatorOptions, 'workMs'> = {},
): LimitedUpstream {
  const upstream = {} as LimitedUpstream;
  beforeAll(async () => {
    if (missing) throw new Error(`${required}: ${missing}`);
    upstream.tlsDir = await mkdtemp(join(tmpdir(), `ces-${name}-tls-`));
    upstream.emulator = await createEmulator({
      port: 0,
      rateLimit: { rps: 0, burst: 0 },
      tlsDir: upstream.tlsDir,
      ...options,
    });
  });
  afterAll(async () => {
    await upstream.emulator?.close();
    if (upstream.tlsDir) await rm(upstream.tlsDir, { recursive: true, force: true });
  });
  return upstream;
}
