// Reading one answer for the limiter's sake: was it the limit's refusal, what Retry-After said, and
// which RateLimit headers came with it. Pure functions of status and headers.

import { isLimitLike, passedTokenAndLimit } from '../spec/limit-statuses.js';
import type { Answer, RateLimitHeaders } from './types.js';

/**
 * A refusal by the limit (spec/limit-statuses.ts, the one list `check`'s burst also judges by),
 * or no answer at all. Anything else (2xx, but also a 401 for a token that just expired) passed
 * the limiter.
 */
export function answerOf(status: number): Answer {
  if (status === 0) return 'error';
  return isLimitLike(status) ? 'limited' : 'accepted';
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
export function mergeRateLimitHeaders(
  seen: RateLimitHeaders | undefined,
  headers: Record<string, string>,
): RateLimitHeaders | undefined {
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

/**
 * How many answers of each status the probe's paced stream got (0 for a transport error); a string
 * names an answer that is not a valid one (calls.ts AnswerOverCap's "200 over the body cap").
 */
export type StatusTally = ReadonlyMap<number | string, number>;

const usable = (key: number | string): boolean =>
  typeof key === 'number' && (passedTokenAndLimit(key) || answerOf(key) === 'limited');

/** What to do about answers of one kind that were not the endpoint working; empty when nothing is to say. */
function hintFor(key: number | string | undefined): string {
  if (typeof key === 'string') return '; the service must end its answers (`ces-harness check` judges the same answer)';
  if (key === 401 || key === 403) return '; check the credentials';
  if (key !== undefined && key >= 300 && key < 400) return '; the target redirects: give the base URL it redirects to';
  return '';
}

/**
 * Why the probe's answers cannot size a rate limit, or undefined when they can. A limit is measured
 * off the endpoint working: answers that are mostly refusals of another kind (401 for bad
 * credentials, a redirect, a 5xx, no answer at all) measure something else, so the run has not
 * tested the limit and must not pass. A few 401s (a token turning over mid-probe) are normal. A
 * 422 or 400 for the payload is the endpoint working: the token and the limit let it through.
 */
export function unusableProbe(tally: StatusTally): string | undefined {
  let total = 0;
  let working = 0;
  for (const [key, n] of tally) {
    total += n;
    if (usable(key)) working += n;
  }
  if (total === 0) return 'the probe got no answer at all';
  // Half the answers working is far below any real run (a handful of 401s at a token's expiry) and
  // far above a run against the wrong thing (every answer a 401, a 3xx or a 5xx).
  if (working * 2 >= total) return undefined;
  const others = [...tally].filter(([key]) => !usable(key)).sort((a, b) => b[1] - a[1]);
  const shown = others.map(([key, n]) => `${n} × ${key === 0 ? 'no answer' : key}`).join(', ');
  // The hint of the most common kind that has one: no answers outnumbering endless bodies (they
  // time out behind them on a loaded machine) still leave "the service must end its answers".
  const hint = others.map(([key]) => hintFor(key)).find((h) => h !== '') ?? '';
  return `only ${working} of ${total} probe answers came from the working endpoint (${shown})${hint}`;
}

/**
 * Why a probe that met no limit cannot say "no limit", when more than a tenth of its requests got no
 * valid answer (none within the timeout, a body past the cap): a service that leaves one request in
 * three unanswered was read as "no limit up to 193 req/s". A real stream loses a few, never that many.
 */
export function gapsInStream(tally: StatusTally): string | undefined {
  let total = 0;
  const gaps: Array<[number | string, number]> = [];
  for (const [key, n] of tally) {
    total += n;
    if (key === 0 || typeof key === 'string') gaps.push([key, n]);
  }
  const missing = gaps.reduce((sum, [, n]) => sum + n, 0);
  if (missing * 10 <= total) return undefined;
  const shown = gaps.map(([key, n]) => `${n} × ${key === 0 ? 'no answer' : key}`).join(', ');
  return `${missing} of ${total} probe requests got no valid answer (${shown}): a stream with that many gaps shows no "no limit"; make the service answer every request, then probe again`;
}
