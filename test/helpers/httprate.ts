// go-chi/httprate as real ground truth for the sliding-window counter: the small Go program in
// test/helpers/httprate (main.go; go.mod pins httprate v0.16.1, go.sum every dependency), built once
// from the Go module proxy into the git-ignored .tools/httprate/bin the way toxiproxy.ts builds
// toxiproxy, and started on 127.0.0.1 and a free port in front of the emulator (its limiter off).
// Missing Go or a failed build skips the test with the reason. stop() ends exactly the process
// started here.

import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { goBinaryMissing, goBuilt } from './go-build.js';
import { freePort, stopper, untilServing } from './spawned-server.js';

const ROOT = findProjectRoot();
const MODULE_DIR = join(ROOT, 'test', 'helpers', 'httprate');
export const HTTPRATE_BINARY =
  process.env['HTTPRATE_BINARY'] ?? join(ROOT, '.tools', 'httprate', 'bin', 'httprate-front');
/** Cold: a few small modules to download, seconds to compile. */
const BUILD_TIMEOUT_MS = 5 * 60_000;

/** Why the front can be neither found nor built here, or undefined when it can. */
export const httprateMissing = (): string | undefined => goBinaryMissing(HTTPRATE_BINARY);

/** The binary, built on first use; rejects with Go's error when it cannot be built. */
export const provisionHttprate = (): Promise<string> => goBuilt(HTTPRATE_BINARY, MODULE_DIR, ['.'], BUILD_TIMEOUT_MS);

export interface RunningHttprate {
  url: string;
  stop(): Promise<void>;
}

/** httprate.Limit(limit, window) keyed by address, in front of `upstream` (the emulator, https on 127.0.0.1). */
export async function startHttprate(
  binary: string,
  o: { upstream: string; tlsDir: string; limit: number; windowS: number },
): Promise<RunningHttprate> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'ces-httprate-'));
  let output = '';
  const child = spawn(
    binary,
    [
      '-upstream',
      o.upstream,
      '-tls-dir',
      o.tlsDir,
      '-port',
      String(port),
      '-limit',
      String(o.limit),
      '-window',
      `${o.windowS * 1000}ms`,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = stopper(child, 'SIGTERM', dir);
  try {
    await untilServing('httprate-front', child, port, () => output, 10_000);
    return { url: `https://127.0.0.1:${port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
