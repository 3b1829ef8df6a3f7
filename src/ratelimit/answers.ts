// Reading one answer for the limiter's sake: was it the limit's refusal, what Retry-After said, and
// which RateLimit headers came with it. Pure functions of status and headers.

import { isLimitLike } from '../runner/burst-probe.js';
import type { Answer, RateLimitHeaders } from './types.js';

/**
 * 429, or a status limiters are known to answer instead (503, 509, 420): the conformance burst
 * probe uses the same list, so `check` and `ratelimit` agree on what a refusal is. Anything else
 * (2xx, but also a 401 for a token that just expired) passed the limiter.
 */
export function answerOf(status: number): Answer {
  if (status === 0) return 'error';
  return isLimitLike(status) ? 'limited' : 'accepted';
}

/**
 * Retry-After (RFC 9110 §10.2.3) in seconds: delay-seconds or an HTTP-date. Unlike the client's
 * retryAfterMs this has no ceiling, because the probe reports what the service said, however long.
 */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

// draft-ietf-httpapi-ratelimit-headers (RateLimit, RateLimit-Policy, and the older RateLimit-Limit,
// -Remaining, -Reset) and the common X-RateLimit-* spelling.
const RATELIMIT_HEADER = /^(x-)?ratelimit(-[a-z]+)?$/;

export function rateLimitHeadersIn(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (RATELIMIT_HEADER.test(name)) out[name] = value.slice(0, 200);
  return out;
}

/** Folds what one answer carried into what the probe has seen so far. */
export function mergeRateLimitHeaders(seen: RateLimitHeaders | undefined, headers: Record<string, string>): RateLimitHeaders | undefined {
  const found = rateLimitHeadersIn(headers);
  if (Object.keys(found).length === 0) return seen;
  const names = new Set([...(seen?.names ?? []), ...Object.keys(found)]);
  return { ...seen, names: [...names].sort(), sample: found };
}

/**
 * When a RateLimit header says the limit resets, seconds from now: RateLimit-Reset or
 * X-RateLimit-Reset (delta seconds, or epoch seconds when the value is that large), or the
 * structured RateLimit field's `t=` (draft 07 on) or `reset=` (earlier drafts). Undefined when none does.
 */
export function resetSeconds(headers: Record<string, string>, nowMs: number): number | undefined {
  const plain = headers['ratelimit-reset'] ?? headers['x-ratelimit-reset'];
  if (plain !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(plain)) {
    const v = Number(plain);
    // Epoch seconds are past 1e9 (2001); a delay that long is not one.
    return v > 1e9 ? Math.max(0, v - nowMs / 1000) : v;
  }
  const structured = headers['ratelimit'];
  const m = structured === undefined ? null : /(?:^|[;,\s])(?:t|reset)=(\d+)/.exec(structured);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}
