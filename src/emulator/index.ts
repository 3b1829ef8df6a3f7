// The reference emulator of the Credit Evaluation Service: built from options, listening once the
// promise resolves, one HTTPS listener per environment with its own credentials, tokens and
// limiter. Used as the default target of the harness and as ground truth in tests.

import { isIP } from 'node:net';
import { usageError } from '../errors.js';
import { generateCredentials } from './credentials.js';
import {
  generateIssuingCertificates,
  leafOnly,
  type CertificateSet,
  type IssuingCertificates,
} from './certs/generate.js';
import { writeCertificates } from './certs/files.js';
import { behaviourWith, type FaultName } from './faults/index.js';
import { conformant } from './behaviour.js';
import { clockOffsetOf, transportOf, withProfiles, type ProfileName } from './profiles/index.js';
import { listen, type Handler, type Listener } from './listener.js';
import { resolveOptions, type EmulatorOptions, type ResolvedOptions } from './options.js';
import { RateLimiter } from './rate-limiter.js';
import { route, VALIDATE_METHODS } from './routes/index.js';
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
  /** The CA of this environment's certificate: the emulator's, or its own (perEnvironment ca/certificateDays). */
  caPem: string;
  caFile: string;
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
    const arrivedMs = opts.now();
    const reply = await handle(req);
    observe({ req, reply, arrivedMs, answeredMs: opts.now() });
    return reply;
  };
}

export async function createEmulator(options?: EmulatorOptions): Promise<Emulator> {
  const opts = resolveOptions(options);
  const behaviourFor = (faults: readonly FaultName[], profiles: readonly ProfileName[]) =>
    opts.overrides.reduce(
      (b, override) => ({ ...b, ...override(b) }),
      behaviourWith([...faults], withProfiles(conformant, profiles)),
    );
  const behaviour = behaviourFor(opts.faults, opts.profiles);
  // An environment with faults or profiles of its own (perEnvironment) answers with them; the rest as above.
  const behaviours = opts.environments.map((name) => {
    const own = opts.perEnvironment[name];
    return own?.faults?.length || own?.profiles?.length
      ? behaviourFor([...opts.faults, ...(own.faults ?? [])], [...opts.profiles, ...(own.profiles ?? [])])
      : behaviour;
  });
  const profiled = transportOf(opts.profiles);
  const transport = opts.workMs === undefined ? profiled : { ...profiled, workMs: opts.workMs };
  // The service's clock: every instant it judges, states or stamps (profiles may set it off).
  const offsetMs = clockOffsetOf(opts.profiles);
  const clock = () => opts.now() + offsetMs;
  // Certificates are dated on the machine's clock, not the service's: a client's TLS judges them by it.
  const generated: IssuingCertificates | undefined = opts.certificates
    ? undefined
    : generateIssuingCertificates(opts.host, Date.now(), undefined, transport.chain);
  const certs: CertificateSet = opts.certificates ?? generated!.set;
  const files = await writeCertificates(certs, opts.tlsDir);

  // An environment with a CA of its own gets a certificate set (and folder) of its own; one with
  // only a validity of its own, a server certificate from the shared CA.
  const ownCerts = await Promise.all(
    opts.environments.map(async (name) => {
      const differs = opts.perEnvironment[name];
      if (differs?.ca === undefined && differs?.certificateDays === undefined && differs?.intermediate === undefined)
        return undefined;
      const own = differs.ca
        ? generateIssuingCertificates(opts.host, Date.now(), `ces-harness emulator CA (${name})`, transport.chain)
        : undefined;
      const issuer = own ?? generated;
      if (!issuer)
        throw usageError(
          `emulator perEnvironment.${name} (ca, certificateDays, intermediate) needs the emulator to make its certificates (no certificates option)`,
        );
      const served = differs.certificateDays !== undefined ? issuer.issue(differs.certificateDays) : issuer.set;
      const set: CertificateSet = {
        caPem: issuer.set.caPem,
        keyPem: served.keyPem,
        certPem: differs.intermediate === 'omitted' ? leafOnly(served.certPem) : served.certPem,
      };
      return { set, files: own ? await writeCertificates(set) : undefined };
    }),
  );
  const credentials = behaviour.environmentCredentials(
    opts.environments.map((name, i) => opts.credentials[i] ?? generateCredentials(name)),
  );
  const envs: EnvState[] = opts.environments.map((name, i) => {
    const differs = opts.perEnvironment[name] ?? {};
    const rateLimit = differs.rateLimit ?? opts.rateLimit;
    return {
      name,
      credentials: credentials[i] ?? generateCredentials(name),
      otherClients: Array.from({ length: opts.clients - 1 }, () => generateCredentials(name)),
      store: new TokenStore(opts.onTokenIssued),
      limiter:
        differs.limiter !== undefined
          ? new RateLimiter(differs.limiter)
          : opts.limiter !== undefined && differs.rateLimit === undefined
            ? new RateLimiter(opts.limiter)
            : RateLimiter.bucket(rateLimit.rps, rateLimit.burst),
      ttlS: differs.tokenTtlS ?? opts.tokenTtlS,
      seq: 0,
      businessLatencyMs: Math.max(differs.businessLatencyMs ?? opts.businessLatencyMs, transport.businessLatencyMs),
      tokenIssueLatencyMs: transport.tokenIssueLatencyMs,
      validateMethods: differs.validateMethods ?? VALIDATE_METHODS,
    };
  });

  const listeners: Listener[] = [];
  const closeAll = async () => {
    await Promise.all(listeners.map((l) => l.close()));
    await files.dispose();
    await Promise.all(ownCerts.map((own) => own?.files?.dispose()));
  };
  try {
    for (const [i, env] of envs.entries()) {
      listeners.push(
        await listen({
          host: opts.host,
          port: opts.port === 0 ? 0 : opts.port + i,
          tls: behaviours[i]!.tls,
          plainHttp: behaviours[i]!.plainHttp,
          transport,
          certPem: (ownCerts[i]?.set ?? certs).certPem,
          keyPem: (ownCerts[i]?.set ?? certs).keyPem,
          handler: observed(opts, async (req) =>
            withDate(await route({ env, b: behaviours[i]!, now: clock(), req }), clock()),
          ),
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
    caPem: ownCerts[i]?.set.caPem ?? certs.caPem,
    caFile: ownCerts[i]?.files?.caFile ?? files.caFile,
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
