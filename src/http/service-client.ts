// The one HTTP client every check uses. It is deliberately careful:
// - every request has a timeout and every body a size cap, so a misbehaving service cannot hang
//   or flood the harness;
// - redirects are never followed (undici's request does not follow them without an interceptor),
//   so credentials and tokens never travel to another origin;
// - a 429 met on the way is waited out (Retry-After, else exponential backoff with full jitter)
//   within a bounded budget, because real services limit every client and a check about token
//   expiry must not fail because a rate limit answered first;
// - what it keeps as evidence is redacted.

import { Agent, request, type Dispatcher } from 'undici';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { Target } from '../config/target.js';
import type { Credentials } from '../spec/credentials.js';
import type { Evidence } from '../report/model.js';
import { credentialFieldsIn, credentialHeadersIn, headerCredential } from './credential-fields.js';
import { fingerprint, type Redactor } from './redact.js';
import { retryAfterMs } from './retry-after.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_CAP_BYTES = 64 * 1024;

export interface Exchange {
  /** "POST /tokens" */
  request: string;
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as text, at most the body cap. */
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  truncated: boolean;
  durationMs: number;
  /**
   * Epoch ms when the (last) request went out and when its answer arrived. The service judged it
   * somewhere in between, so time edges are judged against the whole window (src/time/expiry-edges.ts),
   * never against when a check gets to look.
   */
  sentAt: number;
  receivedAt: number;
  /** How many 429 answers were waited out before this one. */
  rateLimitWaits: number;
  /** The body or a header holds a client secret of this run, in any encoding (JSON-escaped too). */
  echoesSecret: boolean;
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** A raw body, sent as it is. */
  body?: string;
  /** A body serialized as JSON, with Content-Type: application/json. */
  json?: unknown;
  bearer?: string;
  /** False hands 429 answers back instead of waiting them out (for the rate-limit probe). */
  waitOut429?: boolean;
  timeoutMs?: number;
}

export interface RateLimitBudget {
  /** Longest total wait for one logical request, across its retries. */
  maxTotalWaitMs: number;
  maxRetries: number;
  /** Backoff when the 429 carries no usable Retry-After. */
  baseMs: number;
  capMs: number;
}

export const DEFAULT_RATE_LIMIT_BUDGET: RateLimitBudget = { maxTotalWaitMs: 60_000, maxRetries: 10, baseMs: 250, capMs: 8_000 };

export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  /** The last 429, as evidence: a check that was waiting for recovery can judge with it. */
  readonly last: Exchange;
  constructor(message: string, last: Exchange) {
    super(message);
    this.last = last;
  }
}

export interface ServiceClientOptions {
  redactor: Redactor;
  timeoutMs?: number;
  bodyCapBytes?: number;
  rateLimitBudget?: RateLimitBudget;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Connections kept to the target; the checks run concurrently. */
  connections?: number;
}

export interface IssuedToken {
  token: string;
  fingerprint: string;
  /** As the service sent them: the checks judge their types. */
  expiresAt: unknown;
  tokenType: unknown;
}

export interface TokenExchange extends Exchange {
  /** Present when the answer is 2xx with a string `token`. */
  issued?: IssuedToken;
}

export function dispatcherFor(target: Pick<Target, 'caPem'>, connections = 16): Agent {
  // Passing `ca` replaces Node's bundled roots, so keep them and add the user's CA. Built once:
  // given as `ca`, tls.connect would parse the ~150 roots again for every new connection (about
  // 60 ms of blocked event loop each), which stalls every other request in the process and skews
  // anything timed, such as the rate-limit probe.
  const secureContext = target.caPem ? createSecureContext({ ca: [...rootCertificates, target.caPem] }) : undefined;
  return new Agent({
    connections,
    keepAliveTimeout: 10_000,
    connect: {
      ...(secureContext ? { secureContext } : {}),
      rejectUnauthorized: true,
      timeout: DEFAULT_TIMEOUT_MS,
    },
  });
}

export class ServiceClient {
  readonly target: Target;
  private readonly dispatcher: Dispatcher;
  private readonly opts: Required<Omit<ServiceClientOptions, 'connections'>>;
  private readonly echoes: string[] = [];
  private answers = 0;

  constructor(target: Target, options: ServiceClientOptions) {
    this.target = target;
    this.opts = {
      redactor: options.redactor,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      bodyCapBytes: options.bodyCapBytes ?? DEFAULT_BODY_CAP_BYTES,
      rateLimitBudget: options.rateLimitBudget ?? DEFAULT_RATE_LIMIT_BUDGET,
      sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      random: options.random ?? Math.random,
    };
    this.dispatcher = dispatcherFor(target, options.connections);
    options.redactor.addSecret(target.credentials.clientSecret, target.credentials.clientId);
  }

  get redactor(): Redactor {
    return this.opts.redactor;
  }

  async send(method: string, path: string, options: SendOptions = {}): Promise<Exchange> {
    const budget = this.opts.rateLimitBudget;
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const exchange = await this.sendOnce(method, path, options);
      exchange.rateLimitWaits = attempt;
      if (exchange.status !== 429 || options.waitOut429 === false) return exchange;
      const backoff = Math.min(budget.capMs, budget.baseMs * 2 ** attempt) * this.opts.random();
      const wait = retryAfterMs(exchange.headers['retry-after'], Date.now()) ?? backoff;
      if (attempt >= budget.maxRetries || waited + wait > budget.maxTotalWaitMs) {
        throw new RateLimitedError(
          `${exchange.request} was still rate-limited (429) after ${attempt + 1} tries and ${Math.round(waited / 1000)} s of waiting`,
          exchange,
        );
      }
      waited += wait;
      await this.opts.sleep(wait);
    }
  }

  private async sendOnce(method: string, path: string, options: SendOptions): Promise<Exchange> {
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.bearer !== undefined) headers['authorization'] = `Bearer ${options.bearer}`;
    const label = `${method} ${path}`;
    const sentAt = Date.now();
    const started = performance.now();
    const timeout = options.timeoutMs ?? this.opts.timeoutMs;
    const res = await request(this.target.baseUrl + path, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: this.dispatcher,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      signal: AbortSignal.timeout(timeout),
    });
    const { text, truncated } = await readCapped(res.body, this.opts.bodyCapBytes);
    const durationMs = performance.now() - started;
    const answerHeaders = flattenHeaders(res.headers);
    this.answers++;
    const echoesSecret = this.opts.redactor.containsSecret(text) || this.opts.redactor.containsSecret(Object.values(answerHeaders).join('\n'));
    if (echoesSecret) this.echoes.push(label);
    const json = parseJson(text);
    // Whatever the service hands out in a credential-carrying field or header, in any answer (a
    // 401 or 400 included), is a token to fingerprint from now on: by structure, not only what
    // issueToken expected.
    this.registerCredentials(json, answerHeaders);
    return {
      request: label,
      status: res.statusCode,
      headers: answerHeaders,
      text,
      json,
      truncated,
      durationMs,
      sentAt,
      receivedAt: Date.now(),
      rateLimitWaits: 0,
      echoesSecret,
    };
  }

  private registerCredentials(json: unknown, headers: Record<string, string>): void {
    for (const { value } of credentialFieldsIn(json)) if (typeof value === 'string') this.opts.redactor.addToken(value);
    for (const [name, value] of Object.entries(headers)) {
      if (credentialHeadersIn({ [name]: value }).length) this.opts.redactor.addToken(headerCredential(name, value));
    }
  }

  /** POST /tokens with the nested body of §4.1. The token it returns is known to the redactor. */
  async issueToken(credentials: Credentials = this.target.credentials, options: SendOptions = {}): Promise<TokenExchange> {
    this.opts.redactor.addSecret(credentials.clientSecret, credentials.clientId);
    const ex: TokenExchange = await this.send('POST', '/tokens', {
      ...options,
      json: { token: { client_id: credentials.clientId, client_secret: credentials.clientSecret } },
    });
    const body = ex.json as Record<string, unknown> | undefined;
    if (ex.status >= 200 && ex.status < 300 && body && typeof body === 'object' && typeof body['token'] === 'string') {
      const token = body['token'];
      this.opts.redactor.addToken(token);
      ex.issued = { token, fingerprint: fingerprint(token), expiresAt: body['expires_at'], tokenType: body['token_type'] };
    }
    return ex;
  }

  validate(token: string | undefined, method: 'GET' | 'POST' = 'GET', options: SendOptions = {}): Promise<Exchange> {
    return this.send(method, '/tokens/validate', token === undefined ? options : { ...options, bearer: token });
  }

  healthCheck(options: SendOptions = {}): Promise<Exchange> {
    return this.send('POST', '/tokens/health_check', options);
  }

  business(name: string, call: { method: string; body: unknown }, token: string | undefined, options: SendOptions = {}): Promise<Exchange> {
    const withBody = call.method !== 'GET' && call.method !== 'HEAD';
    return this.send(call.method, `/v1/${name}`, {
      ...options,
      ...(withBody ? { json: call.body } : {}),
      ...(token === undefined ? {} : { bearer: token }),
    });
  }

  /** Evidence for the report: the request, the status, and a redacted, shortened note. */
  evidence(ex: Pick<Exchange, 'request' | 'status'> & Partial<Pick<Exchange, 'text' | 'rateLimitWaits'>>, note?: string): Evidence {
    const parts: string[] = [];
    if (note) parts.push(note);
    if (ex.rateLimitWaits) parts.push(`after waiting out ${ex.rateLimitWaits} × 429`);
    const item: Evidence = { request: ex.request, status: ex.status };
    if (parts.length) item.note = this.opts.redactor.text(parts.join('; '));
    return item;
  }

  /** The body as a report may quote it: redacted and cut to a line. */
  quote(ex: Pick<Exchange, 'text'>, max = 120): string {
    const flat = this.opts.redactor.text(ex.text).replace(/\s+/g, ' ').trim();
    const shown = flat.length > max ? `${flat.slice(0, max)}…` : flat;
    return shown === '' ? '(empty body)' : '`' + shown + '`';
  }

  /** Requests whose answer contained a client secret, for the no-secret-echo check. */
  secretEchoes(): string[] {
    return [...this.echoes];
  }

  answersSeen(): number {
    return this.answers;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy?: () => void }, cap: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = cap - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy?.();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
