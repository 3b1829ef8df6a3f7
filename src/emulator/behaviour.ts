// The conformant service: every decision point of types.ts `Behaviour` as the spec wants it.
// Faults are applied on top of this value (faults/index.ts), never by branching in here.

import { newTokenValue } from './token-store.js';
import { sameSecret } from './credentials.js';
import { errorReply, json, text, wwwAuthenticate } from './replies.js';
import { TLS13_SUITES } from './tls-suites.js';
import type { Credentials } from '../spec/credentials.js';
import { UNAUTHORIZED } from '../spec/error-body.js';
import type { TokenRecord } from './token-store.js';
import type { Behaviour, Ctx } from './types.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `{client_id, client_secret}` when both are strings; shared by the lenient fault. */
export function credentialsIn(value: unknown): Credentials | undefined {
  if (!isRecord(value)) return undefined;
  const { client_id: clientId, client_secret: clientSecret } = value;
  return typeof clientId === 'string' && typeof clientSecret === 'string' ? { clientId, clientSecret } : undefined;
}

/** A new record for clientId at ctx.now, using the (possibly faulted) lifetime. */
export function mintRecord(ctx: Ctx, clientId: string, token?: string): TokenRecord {
  const { expiresAtS, validUntilMs } = ctx.b.lifetime(ctx.now, ctx.env.ttlS);
  return {
    token: token ?? ctx.b.tokenValue(ctx, clientId, expiresAtS),
    clientId,
    issuedAtMs: ctx.now,
    expiresAtS,
    validUntilMs,
  };
}

/** §3: a token is live on [issue, validUntil). Issuance judges by this, whatever bearers do. */
export const isLive = (record: TokenRecord, nowMs: number): boolean => nowMs < record.validUntilMs;

/** "2026-11-22 10:00:00 UTC": date and time with seconds (§4.2). */
export const healthTimestamp = (nowMs: number): string =>
  `${new Date(nowMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** §4.2's one line of text around a timestamp, in whatever format the service writes it. */
export const healthText = (timestamp: string): string => `Credit Evaluation Service is alive. Timestamp: ${timestamp}`;

export const conformant: Behaviour = {
  tls: { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3', ciphers: TLS13_SUITES.join(':') },
  plainHttp: false,

  environmentCredentials: (generated) => generated,

  // §4.1: exactly one wrapper key `token` holding both strings.
  readCredentials: (body) => (isRecord(body) ? credentialsIn(body.token) : undefined),

  authenticate: (ctx, given) =>
    [ctx.env.credentials, ...ctx.env.otherClients].some(
      (known) => given.clientId === known.clientId && sameSecret(given.clientSecret, known.clientSecret),
    ),

  guard: () => undefined,

  // Synchronous on purpose: lookup and store cannot interleave, so concurrent first calls get one token.
  issue(ctx, clientId) {
    const current = ctx.env.store.current(clientId);
    if (current !== undefined && isLive(current, ctx.now)) return current;
    return ctx.env.store.save(mintRecord(ctx, clientId));
  },

  tokenValue: () => newTokenValue(),

  findToken: (ctx, value) => ctx.env.store.find(value),

  // expires_at is whole seconds, so round the issue instant down: the token then lives for
  // [issue, expires_at), between ttl - 1 s and ttl, and never past what it advertises.
  lifetime(nowMs, ttlS) {
    const expiresAtS = Math.floor(nowMs / 1000) + ttlS;
    return { expiresAtS, validUntilMs: expiresAtS * 1000 };
  },

  tokenBody: (record) => ({ token: record.token, expires_at: record.expiresAtS, token_type: 'Bearer' }),

  bearerExpired: (record, nowMs) => !isLive(record, nowMs),

  admitBusiness: (check) => check.ok,

  // The spec names the endpoints only, so the answers are plausible stand-ins.
  businessReply(ctx, route) {
    ctx.env.seq += 1;
    if (route === 'evaluation')
      return json(200, { evaluation_id: `ev_${ctx.env.seq}`, decision: 'approved', score: 720 });
    return json(200, { transactions: [], count: 0 });
  },

  validateReply(ctx, check) {
    if (check.ok) return json(200, { valid: true, message: 'Token is valid' });
    return ctx.b.unauthorized(check.reason === 'missing' ? 'missing' : 'invalid');
  },

  healthReply: (nowMs) => text(200, healthText(healthTimestamp(nowMs))),

  unauthorized: (kind) => errorReply(401, UNAUTHORIZED, { 'www-authenticate': wwwAuthenticate(kind) }),

  rateLimited: (retryAfterS) => errorReply(429, 'rate_limit_exceeded', { 'retry-after': String(retryAfterS) }),

  limit: (ctx, key) => ctx.env.limiter.take(key, ctx.now),

  finish: (reply) => reply,
};
