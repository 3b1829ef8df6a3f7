// Tokens shared by the checks of one run, and the one in-process wait for expiry.
// Sharing matters twice: a real service limits clients, so checks should not each fetch their own
// token; and the expiry proof waits once (up to --expiry-wait) for every check that needs it.
//
// In `check` this is the only token owner: the burst the rate-limit engine sends for the checks
// takes its bearer from here too (SharedTokens in src/ratelimit/calls.ts). The `ratelimit`
// command's engine renews its own token in band (InBandToken there), and on purpose: both follow
// §5.5 (keep the token until it expires, then fetch the next), but where the edge is drawn and what
// happens at it are opposite. Here a token is handed out only while it is certainly valid, and at
// its edge the session waits until it has certainly expired, with 429s waited out, because a 401 in
// the uncertainty would be blamed on the service. There the stream may never pause (a pause lowers
// the rate being measured) and every request is a sample, so the renewal is sent in the next paced
// slot just past expires_at, and a 429 to it is data, not something to wait out. One class with
// a switch for both would hold two policies; they share the parts that are the same
// (epochSeconds, the service client's issueToken, fingerprints for anything logged).

import type { Exchange, IssuedToken, TokenExchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import { epochSeconds } from '../spec/expires-at.js';
import {
  certainlyExpiredFromMs,
  certainlyValidUntilMs,
  refusalUnjudged,
  ROUNDING_S,
  type EdgeAllowance,
} from '../time/expiry-edges.js';
import { FINE_SKEW_S, resolutionOf, skewCheckAt } from '../time/clock-skew.js';
import type { Expectations } from '../config/check-settings.js';
import type { BusinessCall } from '../spec/endpoints.js';
import { edgeAllowance } from './expect.js';
import { readHealthClock } from './timestamp.js';

// A token is handed to checks only while at least this long remains before the last instant the
// service certainly still honours it: a request on a busy machine can take that long, and a 401 at
// the edge would then be the harness's doing, not the service's.
const USE_MARGIN_MS = 1_000;
// Probes of an edge are made this far on the certain side of it, for the same reason.
const PROBE_MARGIN_MS = 500;
// When a probe's 401 came back too late to judge, the next token's probe is made twice that
// lateness before its edge, but never further than this (nor than half its certain life): the
// check is about the edge.
const MAX_PROBE_MARGIN_MS = 4_000;
// A token whose certain life would be shorter than this is too short to judge with: see usable().
const MIN_CERTAIN_LIFE_MS = 2_000;
// How close to expires_at such a token may still be handed out.
const SHORT_TOKEN_MARGIN_MS = 250;
// Timed health checks that narrow the measured clock skew before an edge is probed: each halves
// what is left of a second (clock-skew.ts), so eight bring it from a whole second to ~4 ms plus
// the requests' own windows. Each waits under a second for its moment, and is sent only while
// it can be answered before the probe: this much room, or twice the last check's round trip when
// that was slower (a loaded machine or a slow health route would otherwise eat the probe's margin).
const MAX_SKEW_CHECKS = 8;
const SKEW_CHECK_ROOM_MS = 300;

export type ExpiryObservation =
  | { kind: 'not-waited'; reason: string }
  | {
      kind: 'observed';
      token: IssuedToken;
      expiresAtS: number;
      /** validate shortly before the token could expire; absent when there was no time left for it. */
      beforeExpiry?: Exchange;
      /**
       * The token beforeExpiry probed when it is not `token`: the one issued after `token` expired,
       * probed in its stead when `token` had too little life left (`tooLate` says how little), or
       * when `token`'s own probe came back 401 too late to judge (`unjudged`, that probe).
       */
      probedNext?: { token: IssuedToken; expiresAtS: number; unjudged?: Exchange };
      /**
       * When beforeExpiry is absent: the token's certain life left (ms, 0 or less when none) when
       * the wait for its expiry took it up and when the probe's turn came, and whether the run's
       * rate limit had the checks' requests queued meanwhile.
       */
      tooLate?: TooLate;
      /** validate and a business call once the token has certainly expired. */
      afterValidate: Exchange;
      afterBusiness: Exchange;
      reissue: TokenExchange;
    };

export interface TooLate {
  startLeftMs: number;
  leftMs: number;
  limitQueued: boolean;
}

/** The first and the last answer that carried one token. */
export interface Sighting {
  first: TokenExchange & { issued: IssuedToken };
  last: TokenExchange & { issued: IssuedToken };
}

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
  // The earliest and the latest answer that carried each token: how long the service has been
  // handing it out, and whether its expires_at stayed put meanwhile.
  private readonly sightings = new Map<string, Sighting>();

  constructor(private readonly deps: SessionDeps) {}

  /** The first POST /tokens of the run (set by the concurrent-issuance check when it runs first). */
  firstIssue(): Promise<TokenExchange> {
    this.first ??= this.issue();
    return this.first;
  }

  /** The first POST /tokens if a check has asked for it; never sends one itself. */
  firstIssueIfAsked(): Promise<TokenExchange> | undefined {
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
    if (ex.issued) {
      this.seen.set(ex.issued.token, ex.issued);
      const seen = { ...ex, issued: ex.issued };
      const earlier = this.sightings.get(ex.issued.token);
      this.sightings.set(ex.issued.token, { first: earlier?.first ?? seen, last: seen });
    }
    return ex;
  }

  /** For each token this session was handed, the first and the last answer that carried it. */
  tokenSightings(): Sighting[] {
    return [...this.sightings.values()];
  }

  /**
   * A working token: the run's token while it is certainly (by USE_MARGIN_MS) short of its time
   * edge. Once it is not, asking the service again would only return the same token (§3), so the
   * session waits until it has certainly expired and then fetches its successor, as a client should.
   */
  async current(): Promise<IssuedToken> {
    if (this.live) {
      const token = await this.live;
      if (this.usable(token)) return token;
      this.live = undefined;
    }
    this.live ??= this.fetchLive();
    return this.live;
  }

  private async fetchLive(): Promise<IssuedToken> {
    const first = await this.firstIssue();
    let fresh = first.issued && this.usable(first.issued) ? first : await this.issue();
    const expires = fresh.issued ? epochSeconds(fresh.issued.expiresAt) : undefined;
    // Too close to expiry to judge anything with: the service hands out this same token until it
    // expires (§3), so wait it out once and take its successor, as a well-behaved client would.
    if (fresh.issued && expires !== undefined && !this.usable(fresh.issued)) {
      const wait = certainlyExpiredFromMs(expires, this.allowance()) + 250 - this.deps.now();
      this.deps.progress(
        `waiting ${(Math.max(0, wait) / 1000).toFixed(1)} s for ${fresh.issued.fingerprint} to expire before fetching the next token`,
      );
      await this.deps.sleep(Math.max(0, wait));
      fresh = await this.issue();
    }
    if (!fresh.issued) {
      throw new Error(
        `POST /tokens with the configured credentials returned ${fresh.status} ${this.deps.http.quote(fresh)}; no token to test with`,
      );
    }
    return fresh.issued;
  }

  /**
   * The uncertainty of a time edge as this run knows it now: the service's clock as measured from
   * its answers (narrower as the run goes on), or the configured tolerance until it has any.
   */
  allowance(): EdgeAllowance {
    return edgeAllowance(this.deps.expect, this.deps.http.measuredSkew());
  }

  private usable(token: IssuedToken): boolean {
    const expires = epochSeconds(token.expiresAt);
    if (expires === undefined) return true;
    // A measured skew cancels out of a fresh token's certain life (issue and expiry are both on
    // the service's clock): only its uncertainty is lost.
    const allowance = this.allowance();
    const lostS = allowance.measured ? allowance.measured.maxS - allowance.measured.minS : allowance.clockSkewS;
    const certainLifeMs = (this.deps.expect.tokenLifetimeS - ROUNDING_S - lostS) * 1000 - USE_MARGIN_MS;
    // Tokens whose whole life lies within the uncertainty of their end (2 s tokens with a 2 s
    // tolerance) are never certainly valid: waiting for a better one would wait forever, so they
    // are used while any of them is left.
    const until =
      certainLifeMs < MIN_CERTAIN_LIFE_MS
        ? expires * 1000 - SHORT_TOKEN_MARGIN_MS
        : certainlyValidUntilMs(expires, allowance) - USE_MARGIN_MS;
    return until > this.deps.now();
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

  /**
   * Health checks timed at the service's second boundary until the skew is fine or the probe they
   * serve comes near (`probeAt`, our clock, which moves later as the skew narrows).
   */
  private async refineSkew(probeAt: () => number): Promise<void> {
    const { http, now, sleep } = this.deps;
    let latencyMs = 0;
    for (let i = 0; i < MAX_SKEW_CHECKS; i++) {
      const bounds = http.measuredSkew();
      if (bounds && resolutionOf(bounds) <= FINE_SKEW_S) return;
      const at = bounds ? skewCheckAt(bounds, now(), latencyMs) : now();
      if (at + Math.max(SKEW_CHECK_ROOM_MS, 2 * latencyMs) > probeAt()) return;
      await sleep(Math.max(0, at - now()));
      const ex = await readHealthClock(http);
      latencyMs = ex.receivedAt - ex.sentAt;
    }
  }

  /** Waits in-process for a token to expire, when its remaining life fits --expiry-wait. */
  expiry(): Promise<ExpiryObservation> {
    this.expiryWait ??= this.observeExpiry();
    return this.expiryWait;
  }

  private async observeExpiry(): Promise<ExpiryObservation> {
    const { expect, now, sleep, progress, http } = this.deps;
    // The token's remaining life decides, not the promised lifetime: that is only an upper bound,
    // and a token that expires within --expiry-wait (a shorter-lived production, or one issued
    // long ago to another client of shared credentials) is worth waiting for.
    const beyondWait =
      expect.tokenLifetimeS > expect.expiryWaitS
        ? `token lifetime ${expect.tokenLifetimeS} s exceeds --expiry-wait ${expect.expiryWaitS} s; covered by the token ledger once a token captured earlier has expired`
        : undefined;
    const token = await this.current();
    const expiresAtS = epochSeconds(token.expiresAt);
    if (expiresAtS === undefined)
      return {
        kind: 'not-waited',
        reason:
          beyondWait ??
          `expires_at ${this.deps.http.quoteField('expires_at', token.expiresAt)} is not an epoch time to wait for`,
      };
    const remaining = (certainlyExpiredFromMs(expiresAtS, this.allowance()) - now()) / 1000;
    if (remaining > expect.expiryWaitS + expect.clockToleranceS) {
      return {
        kind: 'not-waited',
        reason:
          beyondWait ?? `the token expires in ${Math.round(remaining)} s, beyond --expiry-wait ${expect.expiryWaitS} s`,
      };
    }
    const startLeftMs = certainlyValidUntilMs(expiresAtS, this.allowance()) - now();
    // Settled now, while the token is certainly usable: asked first at the probe, it would take a
    // token of its own, and so wait for this one to expire before the probe is sent.
    await this.validateMethod();
    // The edge is drawn where the service's clock was measured to be, not at the configured worst
    // case: so a token refused a second or two early is told apart from a skewed clock.
    await this.refineSkew(() => certainlyValidUntilMs(expiresAtS, this.allowance()) - PROBE_MARGIN_MS);
    const first = await this.probeJustBefore(token, expiresAtS);
    const expiredFrom = certainlyExpiredFromMs(expiresAtS, this.allowance());
    const untilAfter = expiredFrom + 250 - now();
    if (untilAfter > 0) {
      progress(`waiting ${(untilAfter / 1000).toFixed(1)} s for ${token.fingerprint} to expire`);
      await sleep(untilAfter);
    }
    const [afterValidate, afterBusiness] = await Promise.all([
      this.validate(token.token),
      // Expired for certain: a call the service must refuse, so production's gate lets it through.
      http.business('evaluation', this.deps.business, token.token, { bearerExpired: true }),
    ]);
    // Only once both are answered. Asked beside them (tried 6 Dec, to see the rollover a round trip
    // sooner), a service that hands the expired token out again and so revives it (the
    // expired-token-reissued fault) took the business call as authenticated: on production, the
    // call the gate let through only because it had to be refused (CI 54c).
    const reissue = await this.issue();
    // From here on other checks get the new token rather than the expired one.
    if (reissue.issued) this.live = Promise.resolve(reissue.issued);
    const tooLate = { startLeftMs, leftMs: first.leftMs, limitQueued: http.limitQueued };
    const unjudged = first.ex && refusalUnjudged(first.ex, expiresAtS, this.allowance()) ? first.ex : undefined;
    const next =
      !first.ex || unjudged ? await this.probeNext(token, reissue, unjudged && lateBy(unjudged, first)) : undefined;
    const probedNext = next && { ...next.probed, ...(unjudged ? { unjudged } : {}) };
    return {
      kind: 'observed',
      token,
      expiresAtS,
      ...(next?.ex
        ? { beforeExpiry: next.ex, probedNext, ...(unjudged ? {} : { tooLate }) }
        : first.ex
          ? { beforeExpiry: first.ex }
          : { tooLate }),
      afterValidate,
      afterBusiness,
      reissue,
    };
  }

  /**
   * Validates `token` as late as it is certainly valid, with room for the request itself (`marginMs`;
   * at once if that moment has passed while there is still some room); `leftMs`: its certain life
   * left then, and `plannedAt`: the moment it was meant to be sent.
   */
  private async probeJustBefore(
    token: IssuedToken,
    expiresAtS: number,
    marginMs = PROBE_MARGIN_MS,
  ): Promise<{ ex?: Exchange; leftMs: number; plannedAt: number }> {
    const { now, sleep, progress } = this.deps;
    const validUntil = certainlyValidUntilMs(expiresAtS, this.allowance());
    const plannedAt = validUntil - marginMs;
    const untilBefore = plannedAt - now();
    if (untilBefore > 0) {
      progress(`waiting ${(untilBefore / 1000).toFixed(1)} s to use ${token.fingerprint} just before it expires`);
      await sleep(untilBefore);
    }
    const leftMs = validUntil - now();
    return leftMs > PROBE_MARGIN_MS / 2
      ? { ex: await this.validate(token.token), leftMs, plannedAt }
      : { leftMs, plannedAt };
  }

  /**
   * When `expired` had too little life left for its probe (the other checks used most of a short
   * token on a loaded machine: CI 48f, 49d, 2.7-2.8 s of the emulator's 8 s left, none when the
   * probe's turn came), the token issued after it, whole, is probed instead, when it expires
   * within --expiry-wait: the same rule, one token later, with the skew already refined. Not when
   * the service's rate limit queued the checks' requests: the next probe would wait in that line
   * too (a window of 5 a minute: it came back 401 past the edge), and the first token's shortfall,
   * with the queue named, says more. Also when the first probe came back 401 too late to judge (a
   * starved machine answered it 0.5 s late: CI 57G): then `lateMs`, how long after its planned
   * moment that answer came, moves the next probe earlier by twice as much.
   */
  private async probeNext(
    expired: IssuedToken,
    reissue: TokenExchange,
    lateMs = 0,
  ): Promise<{ ex?: Exchange; probed: { token: IssuedToken; expiresAtS: number } } | undefined> {
    const { expect, now } = this.deps;
    const next = reissue.issued;
    if (this.deps.http.limitQueued) return undefined;
    const nextS = next && next.token !== expired.token ? epochSeconds(next.expiresAt) : undefined;
    if (!next || nextS === undefined) return undefined;
    const leftMs = certainlyValidUntilMs(nextS, this.allowance()) - now();
    if (leftMs < 2 * PROBE_MARGIN_MS || leftMs > (expect.expiryWaitS + expect.clockToleranceS) * 1000) return undefined;
    const marginMs = Math.min(MAX_PROBE_MARGIN_MS, leftMs / 2, Math.max(PROBE_MARGIN_MS, 2 * lateMs));
    const probe = await this.probeJustBefore(next, nextS, marginMs);
    return { ...(probe.ex ? { ex: probe.ex } : {}), probed: { token: next, expiresAtS: nextS } };
  }
}

/** How long after its planned moment a probe's answer came back. */
const lateBy = (ex: Exchange, probe: { plannedAt: number }): number => ex.receivedAt - probe.plannedAt;
