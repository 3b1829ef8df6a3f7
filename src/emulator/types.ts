// The vocabulary shared by the emulator's core and its faults. Kept apart from behaviour.ts so a
// fault file can name these types without pulling in the conformant implementation.

import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../spec/credentials.js';
import type { BusinessEndpoint } from '../spec/endpoints.js';
import type { TokenRecord, TokenStore } from './token-store.js';
import type { RateLimiter, LimitDecision } from './rate-limiter.js';

export type { LimitDecision };

/** What an Authorization header amounts to, before any route decides what to do with it. */
export type BearerCheck =
  | { ok: true; record: TokenRecord }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown'; record?: undefined }
  | { ok: false; reason: 'expired'; record: TokenRecord };

/** A complete answer; the listener only serializes it. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Which 401 it is, for RFC 6750's WWW-Authenticate: `credentials` (POST /tokens), `missing` (no
 * bearer token, so no error code) or `invalid` (a bearer token that is garbage, unknown or expired).
 */
export type UnauthorizedKind = 'credentials' | 'missing' | 'invalid';

export type RouteName = 'tokens' | 'health' | 'validate' | BusinessEndpoint;

export interface TlsSettings {
  minVersion: 'TLSv1.2' | 'TLSv1.3';
  maxVersion: 'TLSv1.2' | 'TLSv1.3';
  /** Node's single `ciphers` string: names starting with TLS_ are TLS 1.3 suites, the rest TLS 1.2. */
  ciphers: string;
}

/** One environment: its own credentials, token store and limiter (§1, §5.6). */
export interface EnvState {
  name: string;
  credentials: Credentials;
  /** Further clients of the environment (none by default): each is accepted and limited on its own. */
  otherClients: Credentials[];
  store: TokenStore;
  limiter: RateLimiter;
  ttlS: number;
  /** Counter for business answer ids: plausible ids without per-request randomness. */
  seq: number;
  /** Added before each business answer (EmulatorOptions.businessLatencyMs). */
  businessLatencyMs: number;
  /** Added before each answer to POST /tokens (Transport.tokenIssueLatencyMs). */
  tokenIssueLatencyMs: number;
  /** The methods /tokens/validate accepts here (§4.3 leaves it open; GET and POST unless perEnvironment narrows it). */
  validateMethods: readonly string[];
}

export interface RequestInfo {
  method: string;
  path: string;
  /** What followed `?` in the request target, '' when nothing did. */
  query?: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string;
  body: Buffer;
  /** As Node reports it: `1.1`, or `2.0` on a listener that offers HTTP/2 (profile http2). */
  httpVersion?: string;
}

/** Everything a hook may look at for one request. */
export interface Ctx {
  env: EnvState;
  /** The composed behaviour, so a hook that calls another one reaches the faulted version. */
  b: Behaviour;
  /** The emulator clock (ms), sampled once so one request sees one instant. */
  now: number;
  req: RequestInfo;
}

/**
 * The decision points of the service. The conformant emulator is one value of this type; a fault
 * replaces a few members, usually by wrapping the one it was given. Members that are values (tls,
 * plainHttp) are read when a listener starts; functions are called per request.
 */
export interface Behaviour {
  /** §5.8 */
  tls: TlsSettings;
  /** §5.8: whether plain HTTP on the TLS port is served instead of refused. */
  plainHttp: boolean;
  /** §1, §5.6: the credentials each environment accepts, from the ones generated for them. */
  environmentCredentials(generated: Credentials[]): Credentials[];
  /** §4.1: the credentials in a POST /tokens body, or undefined for a 400. */
  readCredentials(body: unknown): Credentials | undefined;
  /** §4.1 rule 2 */
  authenticate(ctx: Ctx, given: Credentials): boolean;
  /** Runs before a route's handler; a Reply short-cuts it. Conformant: nothing to add. Async for faults that mint. */
  guard(ctx: Ctx, route: RouteName): Reply | undefined | Promise<Reply | undefined>;
  /** §3, §4.1 rule 1: which token a successful POST /tokens answers with. */
  issue(ctx: Ctx, clientId: string): TokenRecord | Promise<TokenRecord>;
  /** §2: the value of a token minted now; conformant: opaque random bytes (a profile may sign a JWT). */
  tokenValue(ctx: Ctx, clientId: string, expiresAtS: number): string;
  /** §4.3, §4.4: the issued token a presented bearer value stands for, expired or not; conformant: exactly one it handed out. */
  findToken(ctx: Ctx, value: string): TokenRecord | undefined;
  /** §5.4: the advertised and the real expiry of a token minted at nowMs. */
  lifetime(nowMs: number, ttlS: number): { expiresAtS: number; validUntilMs: number };
  /** §2: the token response body. */
  tokenBody(record: TokenRecord): Record<string, unknown>;
  /** §3, §7: whether a presented bearer token counts as expired. */
  bearerExpired(record: TokenRecord, nowMs: number): boolean;
  /** §4.4, §5.3: whether a business call with this bearer judgement is served. */
  admitBusiness(check: BearerCheck): boolean;
  /** §4.4: the answer of a business call that passed the bearer gate, for its JSON object body. */
  businessReply(ctx: Ctx, route: BusinessEndpoint, body: Record<string, unknown>): Reply;
  /** §4.3 */
  validateReply(ctx: Ctx, check: BearerCheck): Reply;
  /** §4.2 */
  healthReply(nowMs: number): Reply;
  /** §7 */
  unauthorized(kind: UnauthorizedKind): Reply;
  /** §7 */
  rateLimited(retryAfterS: number): Reply;
  /** §8: whether this request fits the client's rate limit. */
  limit(ctx: Ctx, key: string): LimitDecision;
  /** Every answer on its way out (conformant: as it is); profiles add what gateways add. */
  finish(reply: Reply, ctx: Ctx): Reply;
}
