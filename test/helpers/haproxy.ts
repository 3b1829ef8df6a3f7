// HAProxy as real ground truth for a sliding-window limiter: Debian's haproxy (installed by
// .ci/run) in front of the emulator (its own limiter off), limiting by a stick table's
// `http_req_rate(<period>)` per client address, in the two recipes found in the wild:
//  - `every`: track every request, refuse when the rate including it is over the limit (the usual
//    recipe; refused requests count, so a client that keeps knocking stays shut out);
//  - `admitted`: refuse when the rate before the request has reached the limit, track only the
//    requests let through (refused ones do not count).
// HAProxy terminates TLS 1.3 with the emulator's certificate (trusted through the emulator's CA)
// and proxies over TLS to the emulator. It runs in the foreground (-db) as one process from a temp
// folder, on a port picked by binding port 0 first; stop() ends exactly that process.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopper, untilServing } from './spawned-server.js';

export const HAPROXY_BINARY = process.env.HAPROXY_BINARY ?? '/usr/sbin/haproxy';

/** Why the HAProxy tests cannot run here, or undefined when they can. */
export function haproxyMissing(): string | undefined {
  return existsSync(HAPROXY_BINARY)
    ? undefined
    : `haproxy not found at ${HAPROXY_BINARY} (apt-get install haproxy, or set HAPROXY_BINARY)`;
}

export interface SlidingLimit {
  /** Requests per period. */
  limit: number;
  periodMs: number;
  recipe: 'every' | 'admitted';
}

export interface HaproxyOptions {
  /** The emulator's https URL (its own limiter off). */
  upstream: string;
  /** Folder holding the emulator's ca.pem, server.pem and server-key.pem (its tlsDir option). */
  tlsDir: string;
  /**
   * One limit, or several stacked (a second and a minute): each its own stick table and tracker
   * (track-sc0, track-sc1…, at most three: HAProxy 2.6's default tune.stick-counters), all in one
   * recipe, the first's. A request is refused when any table's rate says so; with `admitted` it is
   * then counted in none, with `every` in all of them.
   */
  limit: SlidingLimit | readonly SlidingLimit[];
}

export interface RunningHaproxy {
  url: string;
  stop(): Promise<void>;
}

const REFUSAL = `status 429 content-type application/json string '{"error":"rate_limit_exceeded"}'`;

/**
 * The stick table of limit `i`: the first is the frontend's own (`ces`, as it always was), each
 * other a backend of its own (`ces2`, `ces3`), since a proxy holds one table.
 */
const tableName = (i: number): string => (i === 0 ? 'ces' : `ces${i + 1}`);

/** The rules: refuse when a rate is over its limit; count first (`every`) or only what passed (`admitted`). */
function limitRules(limits: readonly SlidingLimit[]): string {
  const recipe = limits[0]!.recipe;
  const track = limits.map((_, i) => `  http-request track-sc${i} src${i === 0 ? '' : ` table ${tableName(i)}`}`);
  const over = limits
    .map((l, i) =>
      recipe === 'every'
        ? `{ sc_http_req_rate(${i}) gt ${l.limit} }`
        : `{ src_http_req_rate(${tableName(i)}) ge ${l.limit} }`,
    )
    .join(' || ');
  const refuse = `  http-request return ${REFUSAL} if ${over}`;
  return (recipe === 'every' ? [...track, refuse] : [refuse, ...track]).join('\n');
}

/** The tables of the limits after the first, each in its backend: kept two periods idle, when its rate reads zero. */
const otherTables = (limits: readonly SlidingLimit[]): string =>
  limits
    .slice(1)
    .map(
      (l, i) =>
        `\nbackend ${tableName(i + 1)}\n  stick-table type ip size 1k expire ${Math.max(60_000, 2 * l.periodMs)}ms store http_req_rate(${l.periodMs}ms)\n`,
    )
    .join('');

export function haproxyConfig(dir: string, port: number, opts: HaproxyOptions): string {
  const limits: readonly SlidingLimit[] = Array.isArray(opts.limit) ? opts.limit : [opts.limit as SlidingLimit];
  if (limits.length > 3) throw new Error(`haproxyConfig: ${limits.length} limits; HAProxy tracks at most 3 at once`);
  const upstream = new URL(opts.upstream);
  return `# Written by test/helpers/haproxy.ts for one test run; everything lives in ${dir}.
global
  maxconn 256

defaults
  mode http
  timeout connect 5s
  timeout client 30s
  timeout server 30s

frontend ces
  bind 127.0.0.1:${port} ssl crt ${join(dir, 'server-combined.pem')} ssl-min-ver TLSv1.3 alpn http/1.1
  stick-table type ip size 1k expire 60s store http_req_rate(${limits[0]!.periodMs}ms)
${limitRules(limits)}
  default_backend emulator
${otherTables(limits)}
backend emulator
  # The emulator speaks TLS 1.3 only; its certificate names localhost.
  server emulator ${upstream.hostname}:${upstream.port} ssl ssl-min-ver TLSv1.3 verify required ca-file ${join(opts.tlsDir, 'ca.pem')} sni str(localhost) verifyhost localhost
`;
}

export async function startHaproxy(opts: HaproxyOptions): Promise<RunningHaproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-haproxy-'));
  // HAProxy wants the certificate and its key in one file.
  const [cert, key] = await Promise.all([
    readFile(join(opts.tlsDir, 'server.pem'), 'utf8'),
    readFile(join(opts.tlsDir, 'server-key.pem'), 'utf8'),
  ]);
  await writeFile(join(dir, 'server-combined.pem'), cert + key, { mode: 0o600 });
  let lastError: unknown;
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    await writeFile(join(dir, 'haproxy.cfg'), haproxyConfig(dir, port, opts));
    let output = '';
    const child = spawn(HAPROXY_BINARY, ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Kept short: only the tail goes into an error message.
    const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4_000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    try {
      await untilServing('haproxy', child, port, () => output, 10_000);
    } catch (err) {
      lastError = err;
      if (child.exitCode === null) child.kill('SIGKILL');
      if (/Address already in use|cannot bind/.test(String(err))) continue;
      break;
    }
    const stop = stopper(child, 'SIGTERM', dir);
    return { url: `https://127.0.0.1:${port}`, stop };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
