// The emulator's options with their defaults applied and checked once, so the rest of the code
// can trust them. Bad values are usage errors: the CLI passes flags straight through.

import { usageError } from '../errors.js';
import { systemClock } from '../time/clock.js';
import { inRange, rangeText, RANGES } from '../config/ranges.js';
import type { CertificateSet } from './certs/generate.js';
import { FAULTS, isFaultName, type FaultName } from './faults/index.js';
import { PROFILES, isProfileName, transportOf, type ProfileName } from './profiles/index.js';
import type { Behaviour, Reply, RequestInfo } from './types.js';

/** One request the emulator answered, with when it arrived and when the answer was ready (ms). */
export interface Observed {
  req: RequestInfo;
  reply: Reply;
  arrivedMs: number;
  answeredMs: number;
}
import type { Limits } from '../ratelimit/limiters/index.js';

export interface EmulatorOptions {
  host?: string;
  port?: number;
  environments?: string[];
  tokenTtlS?: number;
  rateLimit?: { rps: number; burst: number };
  /**
   * Any limiter model instead of the bucket `rateLimit` describes, or a set of them every one of
   * which must admit a request (LimiterSet); null: no limit.
   */
  limiter?: Limits | null;
  /** Clients per environment, each with its own credentials and its own limit (a second one tells scope apart). */
  clients?: number;
  faults?: FaultName[];
  /** Conformant variations real deployments show (profiles/): applied before the faults. */
  profiles?: ProfileName[];
  /**
   * One worker that holds each request this long, ms, instead of the profiles' (single-worker: 8):
   * a service slower than a limit put in front of it (a gateway's, in a test), as an undersized
   * sandbox is.
   */
  workMs?: number;
  tlsDir?: string;
  /**
   * Milliseconds each business endpoint (/v1/…) waits before answering: a slower service, to
   * prove the run history notices (RANGES.businessLatencyMs).
   */
  businessLatencyMs?: number;
  /** The CA and server certificate to serve instead of new ones: a restarted server that keeps its certificate. */
  certificates?: CertificateSet;
  /**
   * The service's clock, epoch ms (a Clock's now, src/time/clock.ts): every token's life, limiter
   * window, Date header and timestamp is read on it. A test shares a virtual one with the harness.
   */
  now?: () => number;
  /** Credentials per environment, in order, instead of generated ones (tests plant canaries). */
  credentials?: Array<{ clientId: string; clientSecret: string } | undefined>;
  /** Behaviour changes applied after the faults: the client scenarios (src/emulator/scenarios/). */
  overrides?: ReadonlyArray<(base: Behaviour) => Partial<Behaviour>>;
  /** Called with every answered request (`ces-harness client` records them). */
  observe?: (observed: Observed) => void;
  /** Called with the first bytes of every connection: the ClientHello of a TLS client. */
  onClientHello?: (first: Buffer) => void;
  /**
   * Called with every token as it is issued, before the answer carrying it is sent: an emulator
   * in a worker thread tells its host this way, so the host's issuedTokens() needs no round trip.
   */
  onTokenIssued?: (token: string) => void;
  /**
   * Where one environment differs from the others (keyed by environment name): a production
   * with shorter tokens, a lower limit or a certificate from another CA, so `cutover` can be
   * shown each readiness finding.
   */
  perEnvironment?: Record<string, EnvironmentDifferences>;
}

export interface EnvironmentDifferences {
  tokenTtlS?: number;
  rateLimit?: { rps: number; burst: number };
  /**
   * Any limiter model, or a set of them, instead of the emulator's (null: no limit): a production
   * behind 1 req/s and 5 per minute beside a sandbox that lets the checks through at once.
   */
  limiter?: Limits | null;
  businessLatencyMs?: number;
  /** `other`: this environment's listener serves a certificate from a CA of its own (its own ca file). */
  ca?: 'other';
  /**
   * `omitted`: this environment serves its server certificate without the intermediate that
   * issued it (the intermediate-ca profile's chain, leaf only), as a misconfigured server does:
   * a client that holds only the root cannot verify it.
   */
  intermediate?: 'omitted';
  /** Days the server certificate stays valid (default 365), signed by the shared CA unless `ca` says otherwise. */
  certificateDays?: number;
  /** The methods /tokens/validate accepts here instead of GET and POST: a production that answers only one of them. */
  validateMethods?: Array<'GET' | 'POST'>;
  /** Faults of this environment alone, on top of the emulator's (its TLS and HTTP behaviour; credentials stay shared). */
  faults?: FaultName[];
  /** Profiles of this environment alone, on top of the emulator's: their answers only (transport and clock stay the emulator's). */
  profiles?: ProfileName[];
}

export interface ResolvedOptions {
  host: string;
  port: number;
  environments: string[];
  tokenTtlS: number;
  rateLimit: { rps: number; burst: number };
  limiter: Limits | null | undefined;
  clients: number;
  faults: FaultName[];
  profiles: ProfileName[];
  workMs: number | undefined;
  tlsDir: string | undefined;
  businessLatencyMs: number;
  certificates: CertificateSet | undefined;
  now: () => number;
  credentials: Array<{ clientId: string; clientSecret: string } | undefined>;
  overrides: ReadonlyArray<(base: Behaviour) => Partial<Behaviour>>;
  observe: ((observed: Observed) => void) | undefined;
  onClientHello: ((first: Buffer) => void) | undefined;
  onTokenIssued: ((token: string) => void) | undefined;
  perEnvironment: Record<string, EnvironmentDifferences>;
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 8443,
    environments: options.environments ?? ['sandbox'],
    tokenTtlS: options.tokenTtlS ?? 86_400,
    rateLimit: options.rateLimit ?? { rps: 50, burst: 50 },
    limiter: options.limiter,
    clients: options.clients ?? 1,
    faults: options.faults ?? [],
    profiles: options.profiles ?? [],
    workMs: options.workMs,
    tlsDir: options.tlsDir,
    businessLatencyMs: options.businessLatencyMs ?? 0,
    certificates: options.certificates,
    now: options.now ?? systemClock.now,
    credentials: options.credentials ?? [],
    overrides: options.overrides ?? [],
    observe: options.observe,
    onClientHello: options.onClientHello,
    onTokenIssued: options.onTokenIssued,
    perEnvironment: options.perEnvironment ?? {},
  };
  const { port, environments, tokenTtlS, rateLimit, faults } = resolved;
  if (!isCount(port) || port + environments.length - 1 > 65_535) {
    throw usageError(
      `emulator port ${String(port)} is not usable for ${environments.length} environment(s): give 0-65535 (0 picks free ports)`,
    );
  }
  if (environments.length === 0)
    throw usageError('emulator needs at least one environment, e.g. --environments sandbox');
  const bad = environments.find((e) => !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(e));
  if (bad !== undefined) throw usageError(`emulator environment name "${bad}" must be letters, digits, - or _`);
  if (new Set(environments).size !== environments.length) throw usageError('emulator environment names must be unique');
  if (!isCount(tokenTtlS) || tokenTtlS < 1)
    throw usageError(`emulator token ttl ${String(tokenTtlS)} must be a whole number of seconds >= 1`);
  if (!(Number.isFinite(rateLimit.rps) && rateLimit.rps >= 0) || !isCount(rateLimit.burst)) {
    throw usageError('emulator rate limit needs rps >= 0 (0 = off) and a whole burst >= 0');
  }
  if (!inRange(RANGES.businessLatencyMs, resolved.businessLatencyMs)) {
    throw usageError(
      `emulator business latency ${String(resolved.businessLatencyMs)} must be ${rangeText(RANGES.businessLatencyMs)}`,
    );
  }
  const stray = Object.keys(resolved.perEnvironment).find((e) => !environments.includes(e));
  if (stray !== undefined)
    throw usageError(
      `emulator perEnvironment names "${stray}", which is not one of the environments ${environments.join(', ')}`,
    );
  const unknownHere = Object.values(resolved.perEnvironment)
    .flatMap((d) => d.faults ?? [])
    .find((f) => !isFaultName(f));
  if (unknownHere !== undefined)
    throw usageError(
      `unknown fault "${String(unknownHere)}" in perEnvironment; known faults: ${FAULTS.map((f) => f.name).join(', ')}`,
    );
  const unknownProfileHere = Object.values(resolved.perEnvironment)
    .flatMap((d) => d.profiles ?? [])
    .find((p) => !isProfileName(p));
  if (unknownProfileHere !== undefined)
    throw usageError(
      `unknown profile "${String(unknownProfileHere)}" in perEnvironment; known profiles: ${PROFILES.map((p) => p.name).join(', ')}`,
    );
  const badMethods = Object.entries(resolved.perEnvironment).find(
    ([, d]) =>
      d.validateMethods !== undefined &&
      (d.validateMethods.length === 0 || d.validateMethods.some((m) => m !== 'GET' && m !== 'POST')),
  );
  if (badMethods !== undefined)
    throw usageError(`emulator perEnvironment.${badMethods[0]}.validateMethods must name GET, POST or both`);
  const leafOnly = Object.entries(resolved.perEnvironment).find(([, d]) => d.intermediate !== undefined);
  if (
    leafOnly !== undefined &&
    (leafOnly[1].intermediate !== 'omitted' ||
      transportOf(resolved.profiles.filter(isProfileName)).chain !== 'intermediate')
  ) {
    throw usageError(
      `emulator perEnvironment.${leafOnly[0]}.intermediate: omitted needs a chain with an intermediate to omit (the intermediate-ca profile)`,
    );
  }
  if (
    resolved.workMs !== undefined &&
    !(Number.isFinite(resolved.workMs) && resolved.workMs >= 0 && resolved.workMs <= 10_000)
  )
    throw usageError(`emulator work per request ${String(resolved.workMs)} ms must be a number of ms from 0 to 10000`);
  if (!isCount(resolved.clients) || resolved.clients < 1 || resolved.clients > 100)
    throw usageError(
      `emulator clients per environment ${String(resolved.clients)} must be a whole number from 1 to 100`,
    );
  const unknown = faults.find((f) => !isFaultName(f));
  if (unknown !== undefined) {
    throw usageError(`unknown fault "${String(unknown)}"; known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
  }
  const unknownProfile = resolved.profiles.find((p) => !isProfileName(p));
  if (unknownProfile !== undefined) {
    throw usageError(
      `unknown profile "${String(unknownProfile)}"; known profiles: ${PROFILES.map((p) => p.name).join(', ')}`,
    );
  }
  return resolved;
}
