// Shopify's toxiproxy as a real network between the harness and the emulator: a TCP proxy on
// 127.0.0.1 whose latency toxic delays every chunk by latency ± jitter, each way. Built once from
// the Go module proxy, the way k6 is (scripts/provision-k6.mjs): tools/toxiproxy/go.mod pins the
// version and go.sum every dependency, the binary lands in the git-ignored .tools/toxiproxy/bin.
// Missing Go or a failed build skips the test with the reason on a developer machine and fails it
// on CI (test/helpers/real-parts.ts names the part at the end of every run).
//
// toxiproxy-server listens on localhost:8474 by default; it is started on 127.0.0.1 and a port
// picked by binding port 0, with no config file and metrics off (its defaults), and its one
// proxy listens on 127.0.0.1 and forwards to the emulator on 127.0.0.1. stop() ends exactly the
// process started here.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { freePort, stopper } from './spawned-server.js';
import { goBinaryMissing, goBuilt } from './go-build.js';

const ROOT = findProjectRoot();
const MODULE_DIR = join(ROOT, 'tools', 'toxiproxy');
export const TOXIPROXY_BINARY =
  process.env['TOXIPROXY_BINARY'] ?? join(ROOT, '.tools', 'toxiproxy', 'bin', 'toxiproxy-server');
/** Cold: ~1 min of downloads and well under one of compiling on 2 cores. */
export const BUILD_TIMEOUT_MS = 10 * 60_000;
const API_TIMEOUT_MS = 5_000;

/** The version tools/toxiproxy/go.mod pins, e.g. "v2.5.0". */
export const TOXIPROXY_VERSION =
  /github\.com\/Shopify\/toxiproxy\/v2\s+(v\d+\.\d+\.\d+)/.exec(
    readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'),
  )?.[1] ?? 'unpinned';

/** Why toxiproxy can be neither found nor built here, or undefined when it can (for real-parts.ts). */
export const toxiproxyMissing = (): string | undefined => goBinaryMissing(TOXIPROXY_BINARY);

/** The binary, built on first use; rejects with Go's first error line when it cannot be built. */
export async function provisionToxiproxy(): Promise<string> {
  const started = Date.now();
  const fresh = !existsSync(TOXIPROXY_BINARY);
  // `go build -o` rather than `go install`: the module's server command is cmd/server, which
  // install would name `server`. The version goes in the way upstream's Makefile stamps it.
  const binary = await goBuilt(
    TOXIPROXY_BINARY,
    MODULE_DIR,
    [
      '-ldflags',
      `-X github.com/Shopify/toxiproxy/v2.Version=${TOXIPROXY_VERSION}`,
      'github.com/Shopify/toxiproxy/v2/cmd/server',
    ],
    BUILD_TIMEOUT_MS,
  );
  if (fresh)
    console.info(`built toxiproxy-server ${TOXIPROXY_VERSION} in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

export interface Latency {
  /** Added each way, ms. */
  latencyMs: number;
  /** ± this much, uniform, per chunk. */
  jitterMs: number;
}

export interface RunningToxiproxy {
  /** Where the proxied service answers: https://127.0.0.1:<port>. */
  url: string;
  stop(): Promise<void>;
}

/** toxiproxy-server in front of `upstream` (an https URL on 127.0.0.1), with `latency` each way. */
export async function startToxiproxy(binary: string, upstream: string, latency: Latency): Promise<RunningToxiproxy> {
  const target = new URL(upstream);
  if (target.hostname !== '127.0.0.1')
    throw new Error(`toxiproxy only fronts loopback services here, not ${target.hostname}`);
  const dir = await mkdtemp(join(tmpdir(), 'ces-toxiproxy-'));
  const apiPort = await freePort();
  let output = '';
  const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(apiPort)], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const stop = stopper(child, 'SIGTERM', dir);
  try {
    const api = `http://127.0.0.1:${apiPort}`;
    await untilApi(api, child, () => output);
    const proxy = JSON.parse(
      await call(api, 'POST', '/proxies', {
        name: 'ces',
        listen: '127.0.0.1:0',
        upstream: `127.0.0.1:${target.port}`,
        enabled: true,
      }),
    ) as { listen?: string };
    const port = /:(\d+)$/.exec(proxy.listen ?? '')?.[1];
    if (port === undefined) throw new Error(`toxiproxy answered no listen address: ${JSON.stringify(proxy)}`);
    for (const stream of ['upstream', 'downstream']) {
      await call(api, 'POST', '/proxies/ces/toxics', {
        name: `latency_${stream}`,
        type: 'latency',
        stream,
        toxicity: 1,
        attributes: { latency: latency.latencyMs, jitter: latency.jitterMs },
      });
    }
    return { url: `https://127.0.0.1:${port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The answer's text (capped); any status but 2xx is an error. */
async function call(api: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> {
  const res = await request(api + path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    signal: AbortSignal.timeout(API_TIMEOUT_MS),
  });
  const text = (await res.body.text()).slice(0, 4_000);
  if (res.statusCode >= 300) throw new Error(`toxiproxy ${method} ${path}: ${res.statusCode} ${text}`);
  return text;
}

/** Waits (bounded: 10 s, one attempt per 100 ms at most) until the API answers GET /version. */
async function untilApi(api: string, child: ReturnType<typeof spawn>, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`toxiproxy-server exited before serving: ${log().trim().slice(-600)}`);
    try {
      await call(api, 'GET', '/version');
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`toxiproxy-server did not answer on ${api} within 10 s: ${log().trim().slice(-600)}`);
}
