// Tokens as the scenarios hold them: the value (only ever sent back to the service), its expiry,
// and a short fingerprint, which is all that may appear anywhere else (the contract: no whole token
// in any report, log or terminal line).

import crypto from 'k6/crypto';
import type { ScenarioConfig } from './config';
import { isObject, jsonBody, postTokens, type Credentials, type Res } from './endpoints';
import { withRetry, type Outcome } from './retry';

export interface IssuedToken {
  value: string;
  /** §2: epoch seconds. */
  expiresAt: number;
  fingerprint: string;
}

export const fingerprint = (token: string): string => `sha256:${crypto.sha256(token, 'hex').slice(0, 12)}`;

/** §2, §4.1: {token: string, expires_at: integer, token_type: "Bearer"}, else undefined. */
export function parseToken(res: Res): IssuedToken | undefined {
  if (res.status !== 200) return undefined;
  const body = jsonBody(res);
  if (!isObject(body)) return undefined;
  const { token, expires_at: expiresAt, token_type: type } = body;
  if (typeof token !== 'string' || token === '' || !Number.isInteger(expiresAt) || type !== 'Bearer') return undefined;
  return { value: token, expiresAt: expiresAt as number, fingerprint: fingerprint(token) };
}

export const credentialsOf = (cfg: ScenarioConfig): Credentials => ({ clientId: cfg.clientId, clientSecret: cfg.clientSecret });

/** POST /tokens with the configured credentials, waiting out 429s within the retry budget. */
export function issueToken(cfg: ScenarioConfig, tags: Record<string, string> = {}): { outcome: Outcome; token: IssuedToken | undefined } {
  const outcome = withRetry(cfg, () => postTokens(cfg, credentialsOf(cfg), { tags }));
  return { outcome, token: parseToken(outcome.res) };
}

export const nowS = (): number => Date.now() / 1000;

/**
 * §5.5: a client may cache the token until expires_at and fetch a new one afterwards. Refetching
 * earlier would not help: until expires_at the service hands out this same token (§3). A service
 * clock slightly ahead of ours may refuse it in the last moment; callers then forget it and retry
 * once with the next one (`callWithToken`). One cache per VU (module state is per VU in k6).
 */
export class TokenCache {
  private token: IssuedToken | undefined;
  /** POST /tokens calls this cache made, for the caller's metrics. */
  fetches = 0;

  constructor(private readonly cfg: ScenarioConfig) {}

  /** A usable token and what fetching it cost (ms, 0 when cached), or undefined when none could be had. */
  get(tags: Record<string, string> = {}): { token: IssuedToken; costMs: number } | undefined {
    const t = this.token;
    if (t !== undefined && nowS() < t.expiresAt) return { token: t, costMs: 0 };
    const { outcome, token } = issueToken(this.cfg, tags);
    this.fetches++;
    this.token = token;
    return token === undefined ? undefined : { token, costMs: outcome.costMs };
  }

  /**
   * Starts the cache with the token setup() fetched. A client process caches one token for all
   * its workers; without this every VU would fetch its own at start, a burst of POST /tokens
   * that would compete with the calls being measured (and with the rate limit).
   */
  seed(token: IssuedToken | undefined): void {
    this.token ??= token;
  }

  /** After a 401 on a business call: the cached token is no good, whatever its expires_at says. */
  forget(): void {
    this.token = undefined;
  }
}

/**
 * A call made with the cached token, as a well-behaved client makes it: a 401 means the token
 * expired under us (its expires_at passed, or the service's clock runs ahead), so forget it and
 * try once more with a fresh one. Undefined when no token could be had at all.
 */
export function callWithToken(
  cache: TokenCache,
  call: (token: string) => Outcome,
  tags: Record<string, string> = {},
): { outcome: Outcome; costMs: number } | undefined {
  let costMs = 0;
  for (let attempt = 0; ; attempt++) {
    const got = cache.get(tags);
    if (got === undefined) return undefined;
    costMs += got.costMs;
    const outcome = call(got.token.value);
    if (outcome.res.status !== 401 || attempt > 0) return { outcome, costMs };
    cache.forget();
  }
}

/** What setup() hands to the VUs. It stays inside k6: lib/summary.ts drops setup_data from the export. */
export interface SharedToken {
  token: IssuedToken | undefined;
}

/** setup(): one token for every VU to start from (undefined if none could be had; VUs then fetch their own). */
export function shareToken(cfg: ScenarioConfig): SharedToken {
  return { token: issueToken(cfg, { step: 'setup' }).token };
}
