// The one HTTP client every check uses. It is deliberately careful:
// - every request has a timeout and every body a size cap, so a misbehaving service cannot hang
//   or flood the harness (read-answer.ts), a compressed body's decoded size included;
// - it offers what a usual client offers (HTTP/2 by ALPN, Accept-Encoding: gzip, deflate, br) and
//   remembers what the service chose (transportSeen), which the report states;
// - redirects are never followed (undici's request does not follow them without an interceptor),
//   so credentials and tokens never travel to another origin;
// - a 429 met on the way is waited out within a bounded budget (rate-limit-wait.ts);
// - what it keeps as evidence is redacted (evidence.ts), and every credential the service hands
//   out is made known to the redactor here, as the answer arrives.
// What a request yields is plain data (exchange.ts); the connection pool is dispatcher.ts.

import { randomUUID } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import type { Dispatcher } from 'undici';
import { request } from './undici.js';
import { isProduction, type Target } from '../config/target.js';
import type { Credentials } from '../spec/credentials.js';
import type { Evidence } from '../report/model.js';
import { scanAnswer } from './answer-scan.js';
import { ACCEPT_ENCODING, codingsOf, UnreadableBody } from './content-coding.js';
import { DEFAULT_CONNECTIONS, dispatcherFor, requestTimeoutMs, type HttpVersion } from './dispatcher.js';
import { evidenceOf } from './evidence.js';
import { quoteBody, quoteField, quoteHeader, type QuotedAnswer } from './quote-body.js';
import type { Exchange, IssuedToken, SendOptions, TokenExchange, TransportSeen } from './exchange.js';
import type { LimitPacer } from './limit-pacer.js';
import { DEFAULT_RATE_LIMIT_BUDGET, sendWaitingOut429, type RateLimitBudget } from './rate-limit-wait.js';
import { flattenHeaders, readCapped } from './read-answer.js';
import { fingerprint, type Redactor } from './redact.js';
import type { ProductionGate } from './production-gate.js';
import type { BearerKind } from '../report/model.js';
import { IDEMPOTENCY_KEY, closedWhileReused, replaySafe } from './replay.js';
import { readAdvertisement, tighterAdvertisement } from '../spec/ratelimit-fields.js';
import { httpDateMs, measureSkew, type ClockReading, type SkewBounds } from '../time/clock-skew.js';
import { systemClock, type Clock } from '../time/clock.js';
import { unsendableInHeader } from '../spec/bearer-value.js';

export const DEFAULT_BODY_CAP_BYTES = 64 * 1024;
// The service's clock readings kept (the newest): plenty to pin the skew down, bounded for a probe of thousands.
const MAX_CLOCK_READINGS = 500;

export interface ServiceClientOptions {
  redactor: Redactor;
  timeoutMs?: number;
  bodyCapBytes?: number;
  rateLimitBudget?: RateLimitBudget;
  /**
   * What sentAt/receivedAt are read on and a 429 is waited out on: the run's (its sleep ends on the
   * run's signal), a test's virtual one, or the system clock.
   */
  clock?: Clock;
  random?: () => number;
  /** Connections kept to the target; the checks run concurrently. */
  connections?: number;
  /** Where HTTPS_PROXY / NO_PROXY are read (dispatcher.ts); the process's environment by default. */
  env?: NodeJS.ProcessEnv;
  /** The run's production gate (production-gate.ts): consulted for every request when the target is production. */
  production?: ProductionGate;
  /** Shared with the other clients that meet the same limit (limit-pacer.ts); none: each request waits alone. */
  pacer?: LimitPacer;
}

export class ServiceClient {
  readonly target: Target;
  private readonly dispatcher: Dispatcher;
  private readonly opts: Required<Omit<ServiceClientOptions, 'connections' | 'env' | 'production' | 'pacer'>> &
    Pick<ServiceClientOptions, 'pacer'>;
  private readonly echoes: string[] = [];
  /** Only for a production target: every request passes it before it is sent. */
  private readonly gate: ProductionGate | undefined;
  /** Tokens this target issued to this client: a bearer among them is a valid one. */
  private readonly issued = new Set<string>();
  private answers = 0;
  /** When the latest request this client sent ended, answered or not (its clock); undefined before any. */
  private lastEnded: number | undefined;
  private readonly readings: ClockReading[] = [];
  // measureSkew over the readings, kept until the next reading: checks ask for it far more often
  // than answers arrive (every edge judged), and each answer adds a reading.
  private skew: { bounds: SkewBounds | undefined } | undefined;
  /** Tokens handed to the target's own credentials, by value: what the token ledger records. */
  private readonly forLedger = new Map<string, IssuedToken>();
  private readonly seen: TransportSeen = { connections: {}, codings: {} };
  /** Replays of one request at most: one for each pooled connection the server may have closed. */
  private readonly replaysAtMost: number;

  constructor(target: Target, options: ServiceClientOptions) {
    this.target = target;
    this.opts = {
      redactor: options.redactor,
      timeoutMs: options.timeoutMs ?? requestTimeoutMs(target),
      bodyCapBytes: options.bodyCapBytes ?? DEFAULT_BODY_CAP_BYTES,
      rateLimitBudget: options.rateLimitBudget ?? DEFAULT_RATE_LIMIT_BUDGET,
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      ...(options.pacer ? { pacer: options.pacer } : {}),
    };
    this.gate = isProduction(target) ? options.production : undefined;
    this.replaysAtMost = options.connections ?? DEFAULT_CONNECTIONS;
    this.dispatcher = dispatcherFor(target, options.connections, options.env, (version: HttpVersion) =>
      count(this.seen.connections, version),
    );
    options.redactor.addSecret(target.credentials.clientSecret, target.credentials.clientId);
  }

  get redactor(): Redactor {
    return this.opts.redactor;
  }

  /** The most of a body this client reads: an answer past it is cut (Exchange.truncated). */
  get bodyCapBytes(): number {
    return this.opts.bodyCapBytes;
  }

  /** True once the limit shared with other clients has refused one of them, so requests wait their turn (limit-pacer.ts). */
  get limitQueued(): boolean {
    return this.opts.pacer?.engaged ?? false;
  }

  /** The clock this client stamps its exchanges with: whatever judges them reads the same one. */
  get clock(): Clock {
    return this.opts.clock;
  }

  send(method: string, path: string, options: SendOptions = {}): Promise<Exchange> {
    const { rateLimitBudget: budget, clock, random, pacer } = this.opts;
    return sendWaitingOut429(() => this.sendOnce(method, path, options), options.waitOut429 !== false, {
      budget,
      clock,
      random,
      ...(pacer ? { pacer } : {}),
    });
  }

  private async sendOnce(method: string, path: string, options: SendOptions): Promise<Exchange> {
    const label = `${method} ${path}`;
    if (options.bearer !== undefined) refuseUnsendable(label, options.bearer);
    const headers: Record<string, string> = {
      accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
      'accept-encoding': ACCEPT_ENCODING,
      ...options.headers,
    };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.bearer !== undefined) headers['authorization'] = `Bearer ${options.bearer}`;
    const timeout = options.timeoutMs ?? this.opts.timeoutMs;
    const send = () =>
      request(this.target.baseUrl + path, {
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
    const bearer = this.bearerKind(options);
    this.gate?.admit(path, bearer);
    let sentAt = this.opts.clock.now();
    let started = performance.now();
    let res: Dispatcher.ResponseData;
    let answered: number | null = null;
    let text: string;
    let truncated: boolean;
    try {
      // A pooled connection the server closed while idle, just as we sent on it (replay.ts). The
      // replay takes the first free pooled connection, and a server that stalled past its idle
      // timeout closed every connection idle as long, so that one can be dead too (profile
      // idle-close under `run`'s load, CI land71 and land84): sent again until a connection answers
      // or fails otherwise, as Go's net/http does, at most once for each connection of the pool.
      for (let replays = 0; ; replays++) {
        try {
          res = await send();
          break;
        } catch (err) {
          if (!closedWhileReused(err) || !replaySafe(method, path, headers) || replays >= this.replaysAtMost) throw err;
          // The attempt went out too: production's audit lists it, and the budget counts each.
          this.audit(method, path, sentAt, started, null, bearer);
          this.gate?.admit(path, bearer);
          sentAt = this.opts.clock.now();
          started = performance.now();
        }
      }
      answered = res.statusCode;
      const coding = flattenHeaders(res.headers)['content-encoding'];
      ({ text, truncated } = await readCapped(res.body, this.opts.bodyCapBytes, coding));
      count(this.seen.codings, codingsOf(coding).join(', ') || 'identity');
    } catch (err) {
      if (err instanceof UnreadableBody) throw new UnreadableBody(`${label}: ${err.message}`);
      throw unreadAnswer(err, label, timeout) ?? err;
    } finally {
      this.audit(method, path, sentAt, started, answered, bearer);
      this.lastEnded = this.opts.clock.now();
    }
    const durationMs = performance.now() - started;
    const answerHeaders = flattenHeaders(res.headers);
    this.answers++;
    const { echoesSecret, carriesIssuedToken, json } = scanAnswer(
      this.opts.redactor,
      res.statusCode,
      answerHeaders,
      text,
    );
    if (echoesSecret) this.echoes.push(label);
    const receivedAt = this.opts.clock.now();
    const dateMs = httpDateMs(answerHeaders['date']);
    if (dateMs !== undefined) this.noteClock({ serviceMs: dateMs, sentAt, receivedAt });
    const advertised = readAdvertisement(answerHeaders, receivedAt);
    if (advertised) this.seen.advertised = tighterAdvertisement(this.seen.advertised, advertised);
    return {
      request: label,
      status: res.statusCode,
      headers: answerHeaders,
      text,
      json,
      truncated,
      durationMs,
      sentAt,
      receivedAt,
      rateLimitWaits: 0,
      echoesSecret,
      ...(carriesIssuedToken ? { carriesIssuedToken } : {}),
    };
  }

  /**
   * A request written on a raw socket instead of through undici (tls.no-plain-http's plain-text
   * one): the production gate counts and lists it like any other.
   */
  async sendRaw<T>(
    method: string,
    path: string,
    send: () => Promise<T>,
    statusOf: (result: T) => number | null,
  ): Promise<T> {
    this.gate?.admit(path, 'none');
    const sentAt = this.opts.clock.now();
    const started = performance.now();
    let status: number | null = null;
    try {
      const result = await send();
      status = statusOf(result);
      return result;
    } finally {
      this.audit(method, path, sentAt, started, status, 'none', { plain_text: true });
      this.lastEnded = this.opts.clock.now();
    }
  }

  private audit(
    method: string,
    path: string,
    sentAt: number,
    started: number,
    status: number | null,
    auth: BearerKind,
    extra: { plain_text?: true } = {},
  ): void {
    this.gate?.record({
      environment: this.target.environment,
      method,
      path,
      status,
      at: new Date(sentAt).toISOString(),
      duration_ms: Math.round(performance.now() - started),
      auth,
      ...extra,
    });
  }

  /** What the Authorization header carries, for the gate and the audit trail (never the token). */
  private bearerKind(options: SendOptions): BearerKind {
    if (options.bearer === undefined) return 'none';
    if (!this.issued.has(options.bearer)) return 'forged';
    return options.bearerExpired ? 'expired' : 'valid';
  }

  /** POST /tokens with the nested body of §4.1. The token it returns is known to the redactor. */
  async issueToken(
    credentials: Credentials = this.target.credentials,
    options: SendOptions = {},
  ): Promise<TokenExchange> {
    this.opts.redactor.addSecret(credentials.clientSecret, credentials.clientId);
    const ex: TokenExchange = await this.send('POST', '/tokens', {
      ...options,
      json: { token: { client_id: credentials.clientId, client_secret: credentials.clientSecret } },
    });
    const body = ex.json as Record<string, unknown> | undefined;
    if (ex.status >= 200 && ex.status < 300 && body && typeof body === 'object' && typeof body['token'] === 'string') {
      const token = body['token'];
      this.opts.redactor.addToken(token);
      this.issued.add(token);
      ex.issued = {
        token,
        fingerprint: fingerprint(token),
        expiresAt: body['expires_at'],
        tokenType: body['token_type'],
      };
      if (credentials.clientId === this.target.credentials.clientId && !this.forLedger.has(token))
        this.forLedger.set(token, ex.issued);
    }
    return ex;
  }

  validate(token: string | undefined, method: 'GET' | 'POST' = 'GET', options: SendOptions = {}): Promise<Exchange> {
    return this.send(method, '/tokens/validate', token === undefined ? options : { ...options, bearer: token });
  }

  healthCheck(options: SendOptions = {}): Promise<Exchange> {
    return this.send('POST', '/tokens/health_check', options);
  }

  /** One logical business call, with an Idempotency-Key of its own (replay.ts says why). */
  business(
    name: string,
    call: { method: string; body: unknown },
    token: string | undefined,
    options: SendOptions = {},
  ): Promise<Exchange> {
    const withBody = call.method !== 'GET' && call.method !== 'HEAD';
    return this.send(call.method, `/v1/${name}`, {
      ...options,
      headers: { [IDEMPOTENCY_KEY]: randomUUID(), ...options.headers },
      ...(withBody ? { json: call.body } : {}),
      ...(token === undefined ? {} : { bearer: token }),
    });
  }

  /** Evidence for the report, through this run's redactor (evidence.ts). */
  evidence(ex: Parameters<typeof evidenceOf>[1], note?: string): Evidence {
    return evidenceOf(this.opts.redactor, ex, note);
  }

  /** The body as a report may quote it: by the spec (quote-body.ts), whole only with --verbose-bodies. */
  quote(ex: QuotedAnswer, max?: number): string {
    return quoteBody(this.opts.redactor, ex, {
      ...(max === undefined ? {} : { max }),
      ...(this.target.verboseBodies ? { verbose: true } : {}),
    });
  }

  /** A field of the spec's bodies as a message may show it (quote-body.ts): its value, or its shape. */
  quoteField(field: string, value: unknown): string {
    return quoteField(this.opts.redactor, field, value);
  }

  /** A header's value as a message may show it (quote-body.ts): its value, or its shape. */
  quoteHeader(ex: Pick<Exchange, 'headers'>, name: string): string {
    return quoteHeader(this.opts.redactor, name, ex.headers[name]);
  }

  /** Requests whose answer contained a client secret, for the no-secret-echo check. */
  secretEchoes(): string[] {
    return [...this.echoes];
  }

  /** A reading of the service's clock (every answer's Date header is one already; the health check's timestamp another). */
  noteClock(reading: ClockReading): void {
    this.readings.push(reading);
    if (this.readings.length > MAX_CLOCK_READINGS) this.readings.shift();
    this.skew = undefined;
  }

  /** The service's clock minus ours, as the answers so far bound it (src/time/clock-skew.ts). */
  measuredSkew(): SkewBounds | undefined {
    this.skew ??= { bounds: measureSkew(this.readings) };
    return this.skew.bounds;
  }

  /** Every token POST /tokens handed this client for the target's credentials (a second client's are not the ledger's). */
  issuedTokens(): IssuedToken[] {
    return [...this.forLedger.values()];
  }

  /** What ALPN chose for each connection and how the answers were coded, so far. */
  transportSeen(): TransportSeen {
    return {
      connections: { ...this.seen.connections },
      codings: { ...this.seen.codings },
      ...(this.seen.advertised ? { advertised: this.seen.advertised } : {}),
    };
  }

  answersSeen(): number {
    return this.answers;
  }

  /** When the latest request ended (answer, error or timeout), on this client's clock: the rate-limit burst waits for quiet after it. */
  lastRequestEndedAt(): number | undefined {
    return this.lastEnded;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

const count = (tally: Record<string, number>, key: string) => void (tally[key] = (tally[key] ?? 0) + 1);

/**
 * A bearer no header can carry (a token a hostile or broken service issued with CR, LF…) is never
 * sent: said here with the token's fingerprint, not as undici's bare "invalid authorization header".
 */
function refuseUnsendable(label: string, bearer: string): void {
  const unsendable = unsendableInHeader(bearer);
  if (!unsendable.length) return;
  const err: NodeJS.ErrnoException = new Error(
    `${label} not sent: token ${fingerprint(bearer)} holds ${unsendable.join(', ')}, which no Authorization header can carry (§5.3)`,
  );
  err.code = 'ERR_UNSENDABLE_TOKEN';
  throw err;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * An answer the client gave up on, said as such: undici's and AbortSignal's own wording ("The
 * operation was aborted due to timeout", "Headers Overflow Error") names neither the request nor
 * the limit.
 */
function unreadAnswer(err: unknown, label: string, timeoutMs: number): NodeJS.ErrnoException | undefined {
  const e = err as { name?: string; code?: string };
  const said = (message: string, code: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code });
  if (e?.name === 'TimeoutError' || TIMEOUT_CODES.has(e?.code ?? ''))
    return said(`${label} got no complete answer within ${timeoutMs / 1000} s`, 'ETIMEDOUT');
  // undici's cap on an HTTP/1.1 answer's head is Node's (--max-http-header-size).
  if (e?.code === 'UND_ERR_HEADERS_OVERFLOW')
    return said(`${label} answered with headers over the ${maxHeaderSize} bytes the client reads`, e.code);
  // undici's bare "other side closed": which request, and that its answer was cut, not refused.
  if (e?.code === 'UND_ERR_SOCKET')
    return said(`${label}: the connection was closed before the answer was complete (other side closed)`, e.code);
  return undefined;
}
