// An emulator pair for `cutover` tests (sandbox and production on port 0), and what reached each:
// the emulator, not the harness, counts the requests and the business calls production let in;
// and the config that names the pair.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEmulator, type Emulator, type EmulatorOptions, type Observed } from '../../src/emulator/index.js';
import { startEmulatorWorker } from '../../src/emulator/worker/host.js';
import {
  WORKER_ENVIRONMENT_OPTIONS,
  WORKER_OPTIONS,
  type WorkerEmulatorOptions,
} from '../../src/emulator/worker/protocol.js';

export interface Pair {
  emulator: Emulator;
  /** Business calls production let in with a token it issued, while that token was live by its expires_at. */
  productionAccepted: string[];
  /** Requests that reached each environment, `METHOD /path`. */
  sandboxRequests: string[];
  productionRequests: string[];
}

/**
 * The pair, in a worker thread of its own whenever its options cross threads (cutoverPairApart),
 * else in this thread (an injected clock, a certificate of its own). In this thread its handshakes
 * and its limiter's clock wait on whatever else runs here: in ci-53d a READY pair's production
 * bucket, probed while three other pairs of the file were, replayed with 28 of 682 answers
 * mispredicted and was "not identified".
 */
export async function cutoverPair(
  options: Omit<EmulatorOptions, 'port' | 'environments' | 'observe'> = {},
): Promise<Pair> {
  if (crossesThreads(options)) return cutoverPairApart(options as Omit<WorkerEmulatorOptions, 'port' | 'environments'>);
  const seen = watcher();
  const emulator = await createEmulator({ port: 0, ...PAIR, ...options, observe: seen.observe });
  return seen.pair(emulator);
}

const CROSSING: ReadonlySet<string> = new Set(WORKER_OPTIONS);
const CROSSING_PER_ENVIRONMENT: ReadonlySet<string> = new Set(WORKER_ENVIRONMENT_OPTIONS);

/** Whether every option is one a worker's emulator takes (protocol.ts), at the top and per environment. */
function crossesThreads(options: Omit<EmulatorOptions, 'port' | 'environments' | 'observe'>): boolean {
  const { perEnvironment = {}, ...top } = options;
  return (
    Object.keys(top).every((k) => CROSSING.has(k)) &&
    Object.values(perEnvironment).every((own) => Object.keys(own).every((k) => CROSSING_PER_ENVIRONMENT.has(k)))
  );
}

/**
 * The pair in a worker thread of its own, as the CLI starts its built-in emulator: five in-process
 * `cutover` runs on this thread (a table's concurrent rows) then cannot hold up its TLS handshakes
 * (a 5 s handshake timeout once made a conformant row NOT READY). Options that cross threads only.
 */
async function cutoverPairApart(options: Omit<WorkerEmulatorOptions, 'port' | 'environments'>): Promise<Pair> {
  const seen = watcher();
  const emulator = await startEmulatorWorker({ port: 0, ...PAIR, ...options }, undefined, { observe: seen.observe });
  return seen.pair(emulator);
}

const PAIR = { environments: ['sandbox', 'production'], tokenTtlS: 86_400 };

/** What reached each environment, told by the emulator's observe hook; `pair` once it listens. */
function watcher() {
  // Each token issued, with its expires_at in ms: an expired token a faulty production still takes
  // is the harness probing that fault (a call the spec says must be refused), not an authenticated call.
  const issued = new Map<string, number>();
  const productionAccepted: string[] = [];
  const sandboxRequests: string[] = [];
  const productionRequests: string[] = [];
  let productionPort = '';
  const observe = ({ req, reply, answeredMs }: Observed) => {
    if (req.path === '/tokens' && reply.status === 200) {
      const { token, expires_at: at } = JSON.parse(reply.body) as { token?: unknown; expires_at?: unknown };
      const atMs = Number(at) > 1e11 ? Number(at) : Number(at) * 1000;
      if (typeof token === 'string') issued.set(token, Number.isFinite(atMs) ? atMs : Infinity);
    }
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const toProduction = String(req.headers.host ?? '').endsWith(`:${productionPort}`);
    (toProduction ? productionRequests : sandboxRequests).push(`${req.method} ${req.path}`);
    if (
      toProduction &&
      req.path.startsWith('/v1/') &&
      bearer !== undefined &&
      answeredMs < (issued.get(bearer) ?? 0) &&
      reply.status !== 401 &&
      reply.status !== 403
    )
      productionAccepted.push(req.path);
  };
  const pair = (emulator: Emulator): Pair => {
    productionPort = new URL(emulator.environments[1]!.url).port;
    return { emulator, productionAccepted, sandboxRequests, productionRequests };
  };
  return { observe, pair };
}

export interface PairConfig {
  /** `history:` (a file, or off). */
  history?: string;
  /** production.max_requests. */
  maxRequests?: number;
  /** More YAML appended as it is (expect:, business:, …). */
  extra?: string;
}

/**
 * A config at `<dir>/<name>.yaml` naming both environments with `${VAR}` credentials and each
 * environment's own CA file, the ledger off; `env` holds the variables' values.
 */
export function pairConfig(
  dir: string,
  name: string,
  e: Emulator,
  { history = 'off', maxRequests = 1000, extra = '' }: PairConfig = {},
): { file: string; env: Record<string, string> } {
  const [sandbox, production] = e.environments;
  const block = (env: typeof sandbox, prefix: string) =>
    `  ${env!.name}:\n    base_url: ${env!.url}\n    client_id: \${${prefix}_ID}\n    client_secret: \${${prefix}_SECRET}\n    ca_file: ${env!.caFile}\n`;
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `target: sandbox\nenvironments:\n${block(sandbox, 'SB')}${block(production, 'PR')}ledger: off\nhistory: ${history}\nproduction:\n  max_requests: ${maxRequests}\nrate_limit:\n  max_rps: 100\n${extra}`,
  );
  return {
    file,
    env: {
      SB_ID: sandbox!.credentials.clientId,
      SB_SECRET: sandbox!.credentials.clientSecret,
      PR_ID: production!.credentials.clientId,
      PR_SECRET: production!.credentials.clientSecret,
    },
  };
}
