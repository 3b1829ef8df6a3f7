// Tokens shared by the checks of one run, and the one in-process wait for expiry.
// Sharing matters twice: a real service limits clients, so checks should not each fetch their own
// token; and the expiry proof waits once (up to --expiry-wait) for every check that needs it.

import type { Exchange, IssuedToken, ServiceClient, TokenExchange } from '../http/service-client.js';
import type { BusinessCall, Expectations } from './check.js';

/** expires_at as epoch seconds, tolerating milliseconds and digit strings (the checks judge those). */
export function epochSeconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Epoch seconds stay below 1e11 until the year 5138; a value above is milliseconds.
  return n > 1e11 ? n / 1000 : n;
}

// A token is reused while at least this much of it is left by our clock.
const MIN_LEFT_S = 0.25;

export type ExpiryObservation =
  | { kind: 'not-waited'; reason: string }
  | {
      kind: 'observed';
      token: IssuedToken;
      expiresAtS: number;
      /** validate shortly before expires_at (minus clock tolerance); absent when there was no time left for it. */
      beforeExpiry?: Exchange;
      afterValidate: Exchange;
      afterBusiness: Exchange;
      reissue: TokenExchange;
      /** Seconds between the reissue and its expires_at. */
      reissueRemainingS?: number;
    };

export interface SessionDeps {
  http: ServiceClient;
  expect: Expectations;
  business: BusinessCall;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  progress: (message: string) => void;
}

export class TokenSession {
  private first?: Promise<TokenExchange>;
  private live?: Promise<IssuedToken>;
  private expiryWait?: Promise<ExpiryObservation>;
  private validateVerb?: Promise<'GET' | 'POST'>;
  private readonly seen = new Map<string, IssuedToken>();

  constructor(private readonly deps: SessionDeps) {}

  /** The first POST /tokens of the run (set by the concurrent-issuance check when it runs first). */
  firstIssue(): Promise<TokenExchange> {
    this.first ??= this.issue();
    return this.first;
  }

  seed(exchange: TokenExchange): void {
    this.remember(exchange);
    this.first ??= Promise.resolve(exchange);
  }

  /** Every token this session was handed for the target's credentials (for the ledger). */
  issuedTokens(): IssuedToken[] {
    return [...this.seen.values()];
  }

  private async issue(): Promise<TokenExchange> {
    return this.remember(await this.deps.http.issueToken());
  }

  private remember(ex: TokenExchange): TokenExchange {
    if (ex.issued) this.seen.set(ex.issued.token, ex.issued);
    return ex;
  }

  /**
   * A working token: the run's token while it is safely (more than the clock tolerance) before its
   * expires_at. Once it is not, asking the service again would only return the same token (§3),
   * so the session waits for it to expire and then fetches its successor, as a client should.
   */
  async current(): Promise<IssuedToken> {
    if (this.live) {
      const token = await this.live;
      if (this.hasLife(token, MIN_LEFT_S)) return token;
      this.live = undefined;
    }
    this.live ??= this.fetchLive(this.deps.expect.clockToleranceS + MIN_LEFT_S);
    return this.live;
  }

  private async fetchLive(marginS: number): Promise<IssuedToken> {
    const first = await this.firstIssue();
    let fresh = first.issued && this.hasLife(first.issued, marginS) ? first : await this.issue();
    const expires = fresh.issued ? epochSeconds(fresh.issued.expiresAt) : undefined;
    // Too close to expiry to judge anything with: the service hands out this same token until it
    // expires (§3), so wait it out once and take its successor, as a well-behaved client would.
    if (fresh.issued && expires !== undefined && !this.hasLife(fresh.issued, marginS)) {
      const wait = (expires + this.deps.expect.clockToleranceS) * 1000 + 250 - this.deps.now();
      this.deps.progress(`waiting ${(Math.max(0, wait) / 1000).toFixed(1)} s for ${fresh.issued.fingerprint} to expire before fetching the next token`);
      await this.deps.sleep(Math.max(0, wait));
      fresh = await this.issue();
    }
    if (!fresh.issued) {
      throw new Error(`POST /tokens with the configured credentials returned ${fresh.status} ${this.deps.http.quote(fresh)}; no token to test with`);
    }
    return fresh.issued;
  }

  private hasLife(token: IssuedToken, marginS: number): boolean {
    const expires = epochSeconds(token.expiresAt);
    return expires === undefined || expires - this.deps.now() / 1000 > marginS;
  }

  /** GET unless the service answers GET with 404/405 (§4.3 leaves the method open). */
  validateMethod(): Promise<'GET' | 'POST'> {
    this.validateVerb ??= this.current().then(async (t) => {
      const get = await this.deps.http.validate(t.token, 'GET');
      return get.status === 404 || get.status === 405 ? 'POST' : 'GET';
    });
    return this.validateVerb;
  }

  async validate(token: string | undefined): Promise<Exchange> {
    return this.deps.http.validate(token, await this.validateMethod());
  }

  /** Waits in-process for a token to expire, when the promised lifetime fits --expiry-wait. */
  expiry(): Promise<ExpiryObservation> {
    this.expiryWait ??= this.observeExpiry();
    return this.expiryWait;
  }

  private async observeExpiry(): Promise<ExpiryObservation> {
    const { expect, now, sleep, progress, http } = this.deps;
    if (expect.tokenLifetimeS > expect.expiryWaitS) {
      return {
        kind: 'not-waited',
        reason: `token lifetime ${expect.tokenLifetimeS} s exceeds --expiry-wait ${expect.expiryWaitS} s; covered by the token ledger once a token captured earlier has expired`,
      };
    }
    const token = await this.current();
    const expiresAtS = epochSeconds(token.expiresAt);
    if (expiresAtS === undefined) return { kind: 'not-waited', reason: `expires_at ${JSON.stringify(token.expiresAt)} is not an epoch time to wait for` };
    const remaining = expiresAtS - now() / 1000;
    if (remaining > expect.expiryWaitS + expect.clockToleranceS) {
      return { kind: 'not-waited', reason: `the token expires in ${Math.round(remaining)} s, beyond --expiry-wait ${expect.expiryWaitS} s` };
    }
    const tolMs = expect.clockToleranceS * 1000;
    // Probe "still valid" as late as the clock tolerance allows; if that moment has passed, probe
    // at once as long as the token is still safely (more than the tolerance) before expires_at.
    const untilBefore = expiresAtS * 1000 - tolMs - 500 - now();
    let beforeExpiry: Exchange | undefined;
    if (untilBefore > 0) {
      progress(`waiting ${(untilBefore / 1000).toFixed(1)} s to use ${token.fingerprint} just before it expires`);
      await sleep(untilBefore);
    }
    if (expiresAtS * 1000 - now() > tolMs) beforeExpiry = await this.validate(token.token);
    const untilAfter = expiresAtS * 1000 + tolMs + 250 - now();
    if (untilAfter > 0) {
      progress(`waiting ${(untilAfter / 1000).toFixed(1)} s for ${token.fingerprint} to expire`);
      await sleep(untilAfter);
    }
    const [afterValidate, afterBusiness] = await Promise.all([
      this.validate(token.token),
      http.business('evaluation', this.deps.business, token.token),
    ]);
    const reissue = await this.issue();
    const reissueExpires = reissue.issued ? epochSeconds(reissue.issued.expiresAt) : undefined;
    // From here on other checks get the new token rather than the expired one.
    if (reissue.issued) this.live = Promise.resolve(reissue.issued);
    return {
      kind: 'observed',
      token,
      expiresAtS,
      ...(beforeExpiry ? { beforeExpiry } : {}),
      afterValidate,
      afterBusiness,
      reissue,
      ...(reissueExpires !== undefined ? { reissueRemainingS: reissueExpires - reissue.receivedAt / 1000 } : {}),
    };
  }
}
