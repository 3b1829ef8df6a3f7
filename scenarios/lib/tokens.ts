// Tokens as the scenarios hold them: the value (only ever sent back to the service), its expiry,
// and a short fingerprint, which is all that may appear anywhere else (the contract: no whole token
// in any report, log or terminal line).

import { sleep } from 'k6';
import crypto from 'k6/crypto';
import { certainlyExpiredFromMs, refusalIsEarly, ROUNDING_S, type EdgeAllowance } from '../../src/time/expiry-edges';
import type { ScenarioConfig } from './config';
import type { Credentials } from '../../src/spec/credentials.js';
import { jsonBody, postTokens, type CallOptions, type Res } from './endpoints';
import { EXPECTED_STATUSES } from './business-answer';
import { counter } from './metrics';
import type { SummaryData } from './summary';
import { withRetry, type Outcome } from './retry';
import { isJsonObject } from '../../src/spec/json-object.js';
import { fingerprintOfSha256 } from '../../src/spec/token-fingerprint.js';

/** A 401 for a token while the service certainly still owed it validity (§3): a finding, and a threshold (count==0). */
export const tokenRefusedBeforeExpiry = counter('token_refused_before_expiry');
/** A 401 at the turn of a token (within the uncertainty of its expires_at, or after it): normal life, retried once. */
export const tokenTurnovers = counter('token_turnovers');

/**
 * What a call made with a token accepts at the HTTP level: a 401 is how a token turns over, so it
 * is not a failed request; whether it came too early is judged by `judgeRefusal`. A 4xx about the
 * payload passed the token (business-answer.ts).
 */
export const WITH_TOKEN: CallOptions = { expect: [...EXPECTED_STATUSES, 401] };

export const edgeAllowanceOf = (cfg: ScenarioConfig): EdgeAllowance => ({ clockSkewS: cfg.clockToleranceS });

export interface IssuedToken {
  value: string;
  /** §2: epoch seconds. */
  expiresAt: number;
  fingerprint: string;
}

export const fingerprint = (token: string): string => fingerprintOfSha256(crypto.sha256(token, 'hex'));

/** §2, §4.1: {token: string, expires_at: integer, token_type: "Bearer"}, else undefined. */
export function parseToken(res: Res): IssuedToken | undefined {
  if (res.status !== 200) return undefined;
  const body = jsonBody(res);
  if (!isJsonObject(body)) return undefined;
  const { token, expires_at: expiresAt, token_type: type } = body;
  if (typeof token !== 'string' || token === '' || !Number.isInteger(expiresAt) || type !== 'Bearer') return undefined;
  return { value: token, expiresAt: expiresAt as number, fingerprint: fingerprint(token) };
}

export const credentialsOf = (cfg: ScenarioConfig): Credentials => ({
  clientId: cfg.clientId,
  clientSecret: cfg.clientSecret,
});

/** POST /tokens with the configured credentials, waiting out 429s within the retry budget. */
export function issueToken(
  cfg: ScenarioConfig,
  tags: Record<string, string> = {},
): { outcome: Outcome; token: IssuedToken | undefined } {
  const outcome = withRetry(cfg, () => postTokens(cfg, credentialsOf(cfg), { tags }));
  return { outcome, token: parseToken(outcome.res) };
}

/**
 * §5.5: a client may cache the token until expires_at and fetch a new one afterwards. Refetching
 * earlier would not help: until expires_at the service hands out this same token (§3). When the
 * service's clock runs behind ours, it hands the same token out again after our expires_at: that
 * one is kept until a 401 or until it has certainly expired, rather than refetched on every call.
 * A 401 at the turn of a token makes callers forget it and retry once with the next one
 * (`callWithToken`). One cache per VU (module state is per VU in k6).
 */
export class TokenCache {
  private token: IssuedToken | undefined;
  private keepUntilMs = 0;
  private seeded = false;
  /** POST /tokens calls this cache made, for the caller's metrics. */
  fetches = 0;

  constructor(private readonly cfg: ScenarioConfig) {}

  /** A usable token and what fetching it cost (ms, 0 when cached), or undefined when none could be had. */
  get(tags: Record<string, string> = {}): { token: IssuedToken; costMs: number } | undefined {
    const t = this.token;
    if (t !== undefined && Date.now() < this.keepUntilMs) return { token: t, costMs: 0 };
    const { outcome, token } = issueToken(this.cfg, tags);
    this.fetches++;
    this.hold(token);
    return token === undefined ? undefined : { token, costMs: outcome.costMs };
  }

  private hold(token: IssuedToken | undefined): void {
    this.token = token;
    if (token === undefined) return;
    const expiresMs = token.expiresAt * 1000;
    this.keepUntilMs =
      Date.now() < expiresMs ? expiresMs : certainlyExpiredFromMs(token.expiresAt, edgeAllowanceOf(this.cfg));
  }

  /**
   * Starts the cache with the token setup() fetched. A client process caches one token for all
   * its workers; without this every VU would fetch its own at start, a burst of POST /tokens
   * that would compete with the calls being measured (and with the rate limit).
   */
  seed(token: IssuedToken | undefined): void {
    // Once per VU: after a forget() the shared token is the one that turned over, not a start.
    if (this.seeded) return;
    this.seeded = true;
    if (token !== undefined && Date.now() < token.expiresAt * 1000) this.hold(token);
  }

  /** After a 401: the cached token is no good, whatever its expires_at says. */
  forget(): void {
    this.token = undefined;
    this.keepUntilMs = 0;
  }
}

/**
 * A 401 to a call made with `token`, judged against its expires_at over the call's whole window:
 * certainly early counts in token_refused_before_expiry (the run fails), otherwise it is the
 * token turning over. Either way a client fetches the next token and tries once more: true.
 */
export function judgeRefusal(cfg: ScenarioConfig, token: IssuedToken, outcome: Outcome): boolean {
  const refused = outcome.res.status === 401;
  const early = refused && refusalIsEarly(outcome, token.expiresAt, edgeAllowanceOf(cfg));
  tokenRefusedBeforeExpiry.add(early ? 1 : 0);
  if (refused && !early) tokenTurnovers.add(1);
  return refused;
}

/**
 * A call made with the cached token, as a well-behaved client makes it: a 401 means the token
 * turned over under us, so forget it and try once more with a fresh one. `call` must send with
 * the options it is given (WITH_TOKEN), so a 401 is not counted as a failed request. Undefined
 * when no token could be had at all.
 */
export function callWithToken(
  cfg: ScenarioConfig,
  cache: TokenCache,
  call: (token: string, opts: CallOptions) => Outcome,
  tags: Record<string, string> = {},
): { outcome: Outcome; costMs: number } | undefined {
  let costMs = 0;
  for (let attempt = 0; ; attempt++) {
    const got = cache.get(tags);
    if (got === undefined) return undefined;
    costMs += got.costMs;
    const outcome = call(got.token.value, WITH_TOKEN);
    if (!judgeRefusal(cfg, got.token, outcome) || attempt > 0) return { outcome, costMs };
    cache.forget();
  }
}

/** What setup() hands to the VUs. It stays inside k6: lib/summary.ts drops setup_data from the export. */
export interface SharedToken {
  token: IssuedToken | undefined;
}

/**
 * setup(): one token for every VU to start from (undefined if none could be had; VUs then fetch their own).
 * With `freshForS`, a token that would turn over within that many seconds is waited out once and
 * the next one fetched: each VU caches its own copy (k6 shares no state between VUs), so a turnover
 * costs one POST /tokens per busy VU where a real client pays one, and in a spike of hundreds of VUs
 * that burst meets the rate limit together with the backlog it is meant to measure (CI land48: a
 * token from the scenario before, 2 s from its end, turned over mid-spike, 300 extra requests, 2 calls
 * lost). The service hands out the same token until expires_at (§3), so only waiting gets a fresh one.
 */
export function shareToken(cfg: ScenarioConfig, freshForS = 0): SharedToken {
  const first = issueToken(cfg, { step: 'setup' }).token;
  if (first === undefined || freshForS <= 0) return { token: first };
  const leftMs = first.expiresAt * 1000 - Date.now();
  if (leftMs >= freshForS * 1000) return { token: first };
  // One wait, bounded by freshForS and expires_at's rounding to whole seconds: a service whose
  // clock runs behind ours may hand out the same token again, which is then kept (the VUs judge
  // its turn as before).
  sleep(Math.max(0, leftMs / 1000 + ROUNDING_S));
  return { token: issueToken(cfg, { step: 'setup' }).token ?? first };
}

/** For the report's `extra`: how often a token turned over under the calls, and how often one was refused early. */
export function tokenTurnoverFigures(data: SummaryData): Record<string, number> {
  return {
    token_turnovers: data.metrics['token_turnovers']?.values['count'] ?? 0,
    token_refused_before_expiry: data.metrics['token_refused_before_expiry']?.values['count'] ?? 0,
  };
}
