// Real Go limiters as ground truth: the small Go program in test/helpers/httprate (main.go; go.mod
// pins go-chi/httprate v0.16.1 and golang.org/x/time v0.15.0, go.sum every dependency), built once
// from the Go module proxy into the git-ignored .tools/httprate/bin the way toxiproxy.ts builds
// toxiproxy, and started on 127.0.0.1 and a free port in front of the emulator (its limiter off):
// go-chi/httprate's sliding-window counter, x/time/rate's bucket, a bucket refilled by a timer in
// whole batches (Envoy's token_bucket), or Traefik's rateLimit middleware. Missing Go or a failed
// build skips the test with the reason. stop() ends exactly the process started here.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { goBinaryMissing, goBuilt } from './go-build.js';
import { freePort, stopper, untilServing } from './spawned-server.js';

const ROOT = findProjectRoot();
const MODULE_DIR = join(ROOT, 'test', 'helpers', 'httprate');
// Named by its sources, so that a change to main.go builds anew rather than running the old binary
// (one missing the limiter a new test asks for) from a developer's earlier build.
const sourceHash = createHash('sha256');
for (const file of ['main.go', 'go.mod', 'go.sum']) sourceHash.update(readFileSync(join(MODULE_DIR, file)));
export const HTTPRATE_BINARY =
  process.env['HTTPRATE_BINARY'] ??
  join(ROOT, '.tools', 'httprate', 'bin', `limiter-front-${sourceHash.digest('hex').slice(0, 12)}`);
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

/** Which real limiter the front runs, keyed by client address. */
export type GoLimiter =
  /** go-chi/httprate's httprate.Limit(limit, window). */
  | { kind: 'httprate'; limit: number; windowS: number }
  /** golang.org/x/time/rate's NewLimiter(rate, burst).Allow. */
  | { kind: 'xrate'; rate: number; burst: number }
  /** rate × fill interval tokens every fill interval, up to burst. */
  | { kind: 'batch'; rate: number; burst: number; fillIntervalS: number }
  /** Traefik's rateLimit middleware: x/time/rate's bucket, a request held up to maxDelay for its token, else 429 with Retry-After. */
  | { kind: 'traefik'; rate: number; burst: number };

const limiterArgs = (l: GoLimiter): string[] =>
  l.kind === 'httprate'
    ? ['-limiter', 'httprate', '-limit', String(l.limit), '-window', `${l.windowS * 1000}ms`]
    : [
        '-limiter',
        l.kind,
        '-rate',
        String(l.rate),
        '-burst',
        String(l.burst),
        ...(l.kind === 'batch' ? ['-fill-interval', `${l.fillIntervalS * 1000}ms`] : []),
      ];

/** The limiter in front of `upstream` (the emulator, https on 127.0.0.1). */
export async function startHttprate(
  binary: string,
  o: { upstream: string; tlsDir: string; limiter: GoLimiter },
): Promise<RunningHttprate> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'ces-httprate-'));
  let output = '';
  const child = spawn(
    binary,
    ['-upstream', o.upstream, '-tls-dir', o.tlsDir, '-port', String(port), ...limiterArgs(o.limiter)],
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
