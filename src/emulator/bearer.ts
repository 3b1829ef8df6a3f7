// Judging an Authorization header (§4.3, §4.4, §5.3). Whether an expired token still counts is
// the behaviour's call (bearerExpired), so a fault can change that without touching the parsing.

import type { BearerCheck, Ctx, EnvState } from './types.js';

// RFC 7235: the scheme is case-insensitive; RFC 6750: b64token characters only.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token value of a well-formed Bearer header, else undefined. */
export function bearerValue(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

export function checkBearer(ctx: Ctx): BearerCheck {
  const header = ctx.req.headers.authorization;
  if (header === undefined || header === '') return { ok: false, reason: 'missing' };
  if (!/^bearer /i.test(header)) return { ok: false, reason: 'malformed' };
  const value = bearerValue(header);
  const record = value === undefined ? undefined : ctx.b.findToken(ctx, value);
  if (record === undefined) return { ok: false, reason: 'unknown' };
  if (ctx.b.bearerExpired(record, ctx.now)) return { ok: false, reason: 'expired', record };
  return { ok: true, record };
}

/** The client a bearer token belongs to, expired or not, for the rate limiter's key. */
export function tokenOwner(env: EnvState, header: string | undefined): string | undefined {
  const value = bearerValue(header);
  return value === undefined ? undefined : env.store.find(value)?.clientId;
}
