// The reference emulator of the Credit Evaluation Service: built from options, listening once the
// promise resolves, one HTTPS listener per environment with its own credentials, tokens and
// limiter. Used as the default target of the harness and as ground truth in tests.

import { isIP } from 'node:net';
import { generateCredentials } from './credentials.js';
import { generateCertificates } from './certs/generate.js';
import { writeCertificates } from './certs/files.js';
import { behaviourWith } from './faults/index.js';
import { conformant } from './behaviour.js';
import { clockOffsetOf, transportOf, withProfiles } from './profiles/index.js';
import { listen, type Handler, type Listener } from './listener.js';
import { resolveOptions, type EmulatorOptions, type ResolvedOptions } from './options.js';
import { RateLimiter } from './rate-limiter.js';
import { route } from './routes/index.js';
import { withDate } from './replies.js';
import { TokenStore } from './token-store.js';
import type { Credentials } from '../spec/credentials.js';
import type { EnvState } from './types.js';

export type { EmulatorOptions, Observed } from './options.js';
export { FAULTS, isFaultName, type FaultName } from './faults/index.js';
export { PROFILES, isProfileName, type ProfileName } from './profiles/index.js';
export { overstatedRateLimitHeaders } from './profiles/ratelimit-headers.js';

export interface EmulatorEnvironment {
  name: string;
  url: string;
  credentials: Credentials;
  /** Every client of the environment, `credentials` first (EmulatorOptions.clients of them). */
  clients: Credentials[];
}

export interface Emulator {
  /** Of the first environment. */
  url: string;
  credentials: Credentials;
  /** The CA that signed the server certificate, as text and as a file (for k6: SSL_CERT_FILE). */
  caPem: string;
  caFile: string;
  environments: EmulatorEnvironment[];
  /** Every token any environment has handed out so far, so a test can hunt for each in outputs. */
  issuedTokens(): string[];
  /** Closes the listeners and every connection, idle keep-alive ones included. */
  close(): Promise<void>;
}

/** The host a client should dial: an unspecified listen address means "this machine". */
function urlHost(host: string): string {
  if (host === '' || host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** The route handler, telling `opts.observe` (when given) what each request got and when. */
function observed(opts: ResolvedOptions, handle: Handler): Handler {
  const observe = opts.observe;
  if (observe === undefined) return handle;
  return async (req) => {
    const arrivedMs = Date.now();
    const reply = await handle(req);
    observe({ req, reply, arrivedMs, answeredMs: Date.now() });
    return reply;
  };
}

export async function createEmulator(options?: EmulatorOptions): Promise<Emulator> {
  const opts = resolveOptions(options);
  const faulted = behaviourWith(opts.faults, withProfiles(conformant, opts.profiles));
  const behaviour = opts.overrides.reduce((b, override) => ({ ...b, ...override(b) }), faulted);
  const transport = transportOf(opts.profiles);
  // The service's clock: every instant it judges, states or stamps (profiles may set it off).
  const offsetMs = clockOffsetOf(opts.profiles);
  const clock = () => opts.now() + offsetMs;
  const certs = opts.certificates ?? generateCertificates(opts.host, Date.now(), transport.chain);
  const files = await writeCertificates(certs, opts.tlsDir);

  const credentials = behaviour.environmentCredentials(opts.environments.map((name, i) => opts.credentials[i] ?? generateCredentials(name)));
  const envs: EnvState[] = opts.environments.map((name, i) => ({
    name,
    credentials: credentials[i] ?? generateCredentials(name),
    otherClients: Array.from({ length: opts.clients - 1 }, () => generateCredentials(name)),
    store: new TokenStore(),
    limiter: opts.limiter !== undefined ? new RateLimiter(opts.limiter) : RateLimiter.bucket(opts.rateLimit.rps, opts.rateLimit.burst),
    ttlS: opts.tokenTtlS,
    seq: 0,
    businessLatencyMs: Math.max(opts.businessLatencyMs, transport.businessLatencyMs),
  }));

  const listeners: Listener[] = [];
  const closeAll = async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await files.dispose();
  };
  try {
    for (const [i, env] of envs.entries()) {
      listeners.push(
        await listen({
          host: opts.host,
          port: opts.port === 0 ? 0 : opts.port + i,
          tls: behaviour.tls,
          plainHttp: behaviour.plainHttp,
          transport,
          certPem: certs.certPem,
          keyPem: certs.keyPem,
          handler: observed(opts, async (req) => withDate(await route({ env, b: behaviour, now: clock(), req }), clock())),
          ...(opts.onClientHello ? { peek: opts.onClientHello } : {}),
        }),
      );
    }
  } catch (error) {
    // A port in use for the second environment must not leave the first one listening.
    await closeAll();
    throw error;
  }

  const environments = envs.map((env, i) => ({
    name: env.name,
    url: `https://${urlHost(opts.host)}:${listeners[i]?.port ?? 0}`,
    credentials: { ...env.credentials },
    clients: [env.credentials, ...env.otherClients].map((c) => ({ ...c })),
  }));
  const first = environments[0]!;
  let closing: Promise<void> | undefined;
  return {
    url: first.url,
    credentials: first.credentials,
    caPem: certs.caPem,
    caFile: files.caFile,
    environments,
    issuedTokens: () => envs.flatMap((env) => env.store.tokens()),
    close: () => (closing ??= closeAll()),
  };
}
