// The request a rate-limit probe repeats (rate_limit.endpoint), as the configured client sends it,
// plus the same request as a second client when one is configured (for the scope). No call ever
// waits out a 429: the probe wants to see each refusal. Both the `ratelimit` command and `check`'s
// burst (src/runner/limit-burst.ts) send through these calls.
//
// The token: `check` hands over its run's token session (shared by every check, §3: one token per
// client at a time), and the calls take their bearer from it on every call. Without one, the calls
// fetch their own and refresh it in band: when it runs out, the next paced slot sends POST /tokens
// instead of the endpoint call, so the stream never stalls on a token and the refresh is paced and
// counted like every other request. (With the service's 24 h tokens that never happens; with the
// built-in emulator's 4 s tokens it happens every few seconds.)

import type { Credentials } from '../spec/credentials.js';
import type { Exchange, IssuedToken } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import { isRateLimitEndpoint, type BusinessCalls, type RateLimitEndpoint } from '../spec/endpoints.js';
import { epochSeconds } from '../spec/expires-at.js';

export interface ProbeCalls {
  endpoint: RateLimitEndpoint;
  /** One request as the configured client. */
  primary(): Promise<Exchange>;
  /** One request as the second client; absent when none is configured or it got no token. */
  second?: () => Promise<Exchange>;
  /** Why there is no second client, when one was configured. */
  secondProblem?: string;
  /** §4.3 leaves the method open: what validate turned out to answer to. */
  validateMethod?: 'GET' | 'POST';
  /**
   * Requests sent outside the paced stream (token fetches, the validate method, a preflight just
   * before: the set-up requests), and 429s among them.
   */
  overhead: { sent: number; limited: number };
}

export class ProbeSetupError extends Error {
  override readonly name = 'ProbeSetupError';
}

const NO_WAIT = { waitOut429: false } as const;

/**
 * An answer cut at the client's body cap (a body without end, or far too long): no answer the
 * service meant, so never one the limit admitted. `check` fails the same answer (its body is not the
 * JSON the spec asks for); counted as admitted, a validate that streams forever read as "no limit".
 */
export class AnswerOverCap extends Error {
  override readonly name = 'AnswerOverCap';
  /** How the probe's tally names it: the status, and why it is not counted. */
  readonly tallied: string;
  constructor(ex: Exchange, capBytes: number) {
    super(
      `${ex.request} answered ${ex.status} with a body over the ${capBytes}-byte cap the client reads: not a valid answer, not counted as admitted`,
    );
    this.tallied = `${ex.status} over the body cap`;
  }
}

/**
 * A business answer past the cap that declared its length: §4.4 leaves payloads to the user (check
 * judges a business answer by its status alone), so a large, finite body is the endpoint working,
 * cut only because the harness reads no more. The token endpoints' bodies are the spec's few fields.
 */
const declaredBusinessBody = (ex: Exchange): boolean =>
  ex.request.includes(' /v1/') && ex.headers['content-length'] !== undefined;

/** The call's answer, or AnswerOverCap when its body was cut at the cap (declaredBusinessBody aside). */
function whole<T extends Exchange>(http: ServiceClient, call: () => Promise<T>): () => Promise<T> {
  return async () => {
    const ex = await call();
    if (ex.truncated && !declaredBusinessBody(ex)) throw new AnswerOverCap(ex, http.bodyCapBytes);
    return ex;
  };
}

/**
 * A token that is replaced in band once it has expired by our clock (the service client's): the `ratelimit` command's
 * token owner. Not the conformance run's TokenSession (src/runner/token-session.ts), which `check`
 * hands in as SharedTokens: that one stops handing out a token while it is still certainly valid
 * and then sleeps until it has certainly expired, waiting out 429s, so that no 401 at the edge is
 * blamed on the service. A paced stream cannot sleep (the offered rate is what is measured) and
 * must see each 429, so here the renewal takes the first paced slot 50 ms past expires_at, counted like any
 * sample, and a refused or unchanged answer is asked again 250 ms later.
 */
class InBandToken {
  private token: IssuedToken;
  private refreshing = false;
  private nextAskMs = 0;

  constructor(
    private readonly http: ServiceClient,
    private readonly credentials: Credentials,
    first: IssuedToken,
  ) {
    this.token = first;
  }

  get value(): string {
    return this.token.token;
  }

  private expiresAtMs(): number | undefined {
    const s = epochSeconds(this.token.expiresAt);
    return s === undefined ? undefined : s * 1000;
  }

  /** True when this slot should fetch the successor: expired, nobody fetching, not asked just now. */
  due(): boolean {
    const expires = this.expiresAtMs();
    const now = this.http.clock.now();
    // 50 ms past expiry: the service hands out the same token until then (§3).
    return expires !== undefined && !this.refreshing && now >= expires + 50 && now >= this.nextAskMs;
  }

  async refresh(): Promise<Exchange> {
    this.refreshing = true;
    try {
      const ex = await this.http.issueToken(this.credentials, NO_WAIT);
      if (ex.issued && ex.issued.token !== this.token.token) this.token = ex.issued;
      // The same token again (the service's clock is behind ours) or a refusal: ask again shortly.
      else this.nextAskMs = this.http.clock.now() + 250;
      return ex;
    } finally {
      this.refreshing = false;
    }
  }
}

/** A token owner the caller already has (`check`'s TokenSession): it keeps the token fresh. */
export interface SharedTokens {
  current(): Promise<{ token: string }>;
  /** §4.3 leaves validate's method open: what the owner found it answers to. */
  validateMethod(): Promise<'GET' | 'POST'>;
}

interface CallsInput {
  http: ServiceClient;
  endpoint: RateLimitEndpoint;
  business: BusinessCalls;
  secondClient?: Credentials;
  /** Where the bearer comes from; without it the calls fetch a token and refresh it in band. */
  tokens?: SharedTokens;
  /**
   * Send times (on `http`'s clock) of requests sent to the same target before the calls, by
   * someone else: the CLI's preflight. A limit counting per client counted them too.
   */
  sentBefore?: readonly number[];
}

/**
 * How long before the set-up requests an earlier request still counts among them. The probe reads
 * its set-up requests as held by the drain's first window (recover.ts drainFigures); the CLI's
 * preflight goes a few milliseconds before them, into that window too: left out, a limit of 40 per
 * 0.5 s read 37 instead of 38 and the period trials bracketed 0.2 s, not 0.5 s (HAProxy, bench).
 * One sent longer before (`run`'s preflight, before all its checks) is earlier traffic, not set-up.
 */
export const SET_UP_ADJACENT_MS = 250;

/** Of `sentBefore`, the requests sent within SET_UP_ADJACENT_MS before the set-up began at `setUpMs`. */
export function adjacentBefore(sentBefore: readonly number[], setUpMs: number): number {
  return sentBefore.filter((at) => at <= setUpMs && setUpMs - at <= SET_UP_ADJACENT_MS).length;
}

/**
 * Fetches what the calls need (a token; validate's method) with the client's usual 429 wait-out,
 * since the limit may still be drained by an earlier stage, and returns the calls.
 */
export async function probeCalls(input: CallsInput): Promise<ProbeCalls> {
  const { http, business } = input;
  if (!isRateLimitEndpoint(input.endpoint))
    throw new ProbeSetupError(`rate_limit.endpoint ${input.endpoint} is not one the probe knows`);
  const endpoint = input.endpoint;
  // The preflight's request, when it went just before: a set-up request like the token's. The
  // clock is read only when there is one to place (a caller without a preflight passes none).
  const before = input.sentBefore ?? [];
  const overhead = { sent: before.length > 0 ? adjacentBefore(before, http.clock.now()) : 0, limited: 0 };
  const counted = <T extends Exchange>(ex: T): T => {
    overhead.sent += 1 + ex.rateLimitWaits;
    overhead.limited += ex.rateLimitWaits;
    return ex;
  };
  const issue = async (credentials: Credentials) => counted(await http.issueToken(credentials));

  if (endpoint === 'tokens.issue') {
    const calls: ProbeCalls = {
      endpoint,
      primary: whole(http, () => http.issueToken(http.target.credentials, NO_WAIT)),
      overhead,
    };
    if (input.secondClient) {
      const second = input.secondClient;
      calls.second = whole(http, () => http.issueToken(second, NO_WAIT));
    }
    return calls;
  }

  const bearer = input.tokens ? sharedBearer(input.tokens) : await inBandBearer(http, endpoint, counted);
  const validateMethod = endpoint === 'tokens.validate' ? await bearer.validateMethod() : undefined;
  const call = endpointCall(http, endpoint, business, validateMethod);
  const calls: ProbeCalls = {
    endpoint,
    primary: whole(http, () => bearer.send(call)),
    overhead,
    ...(validateMethod ? { validateMethod } : {}),
  };
  if (input.secondClient) {
    const credentials = input.secondClient;
    const secondFirst = await issue(credentials);
    if (secondFirst.issued) {
      // Used for a few requests at the end of the probe. Should it have expired by then (short
      // tokens), its 401 still says what matters: the limiter let the request through.
      const secondToken = secondFirst.issued.token;
      calls.second = whole(http, () => call(secondToken));
    } else {
      calls.secondProblem = `POST /tokens with rate_limit.second_client returned ${secondFirst.status} ${http.quote(secondFirst)}`;
    }
  }
  return calls;
}

/** Where the calls' bearer token comes from, and who renews it. */
interface Bearer {
  /** One call with the current token, or the token's renewal sent in its place. */
  send(call: (bearer: string) => Promise<Exchange>): Promise<Exchange>;
  validateMethod(): Promise<'GET' | 'POST'>;
}

/** The caller's token owner, asked on every call: it renews the token near its expiry. */
function sharedBearer(shared: SharedTokens): Bearer {
  return {
    send: async (call) => call((await shared.current()).token),
    validateMethod: () => shared.validateMethod(),
  };
}

/** A token of the calls' own, fetched now (and validate's method found with it), renewed in band. */
async function inBandBearer(
  http: ServiceClient,
  endpoint: RateLimitEndpoint,
  counted: <T extends Exchange>(ex: T) => T,
): Promise<Bearer> {
  const first = counted(await http.issueToken(http.target.credentials));
  if (!first.issued)
    throw new ProbeSetupError(
      `POST /tokens with the configured credentials returned ${first.status} ${http.quote(first)}; no token to probe ${endpoint} with`,
    );
  const token = new InBandToken(http, http.target.credentials, first.issued);
  return {
    send: (call) => (token.due() ? token.refresh() : call(token.value)),
    validateMethod: async () => {
      const get = counted(await http.validate(token.value, 'GET'));
      return get.status === 404 || get.status === 405 ? 'POST' : 'GET';
    },
  };
}

/** The one dispatch of a rate-limit endpoint that takes a bearer token, sent without waiting out a 429. */
function endpointCall(
  http: ServiceClient,
  endpoint: Exclude<RateLimitEndpoint, 'tokens.issue'>,
  business: CallsInput['business'],
  validateMethod: 'GET' | 'POST' | undefined,
): (bearer: string) => Promise<Exchange> {
  if (endpoint === 'tokens.validate') return (bearer) => http.validate(bearer, validateMethod, NO_WAIT);
  const name = endpoint === 'business.ach_transactions' ? 'ach_transactions' : 'evaluation';
  return (bearer) => http.business(name, business[name], bearer, NO_WAIT);
}
