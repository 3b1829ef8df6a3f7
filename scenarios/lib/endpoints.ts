// One wrapper per endpoint of the service (§4). Each request carries a `name` tag (method and path
// template), so k6's metrics group by endpoint rather than by full URL, and an `endpoint` tag the
// thresholds can select on. Credentials and tokens only ever travel in bodies and headers: never
// in URLs or tags, which k6 prints and exports.

import crypto from 'k6/crypto';
import http from 'k6/http';
import type { Params, RefinedResponse } from 'k6/http';
import type { Credentials } from '../../src/spec/credentials.js';
import { errorTextOf } from '../../src/spec/error-body.js';
import type { BusinessEndpoint, HttpMethod } from '../../src/spec/endpoints.js';
import type { ScenarioConfig } from './config.js';

export type Res = RefinedResponse<'text'>;

/** Read once per VU for each options object (its parameters are kept by it): not changed after a call. */
export interface CallOptions {
  /** Statuses that are the expected answer to this call (e.g. 401 for wrong credentials). */
  readonly expect?: ReadonlyArray<number | { min: number; max: number }>;
  readonly tags?: Readonly<Record<string, string>>;
}

const ACCEPT_JSON = { Accept: 'application/json' };
const JSON_HEADERS = { 'Content-Type': 'application/json', ...ACCEPT_JSON };

// Offered as browsers, curl --compressed and most SDKs offer it (the checks' client does too,
// src/http/content-coding.ts): a gateway that compresses then does so for the load as well, and k6
// decodes what comes back (gzip, deflate, br) before any check reads the body. k6 negotiates HTTP/2
// by ALPN on its own.
const ACCEPT_ENCODING = 'gzip, deflate, br';

type K6Params = Params & { responseType: 'text'; headers: Record<string, string> };

/** One endpoint's URL and k6 parameters, as every call of this VU sends them. */
interface Prepared {
  cfg: ScenarioConfig;
  url: string;
  params: K6Params;
  /** The parameters with a call's options, made at the first call given that options object. */
  withOptions: WeakMap<CallOptions, K6Params>;
}

// Per VU (each VU runs this module's top level once), by endpoint name ("POST /tokens").
const prepared = new Map<string, Prepared>();

/**
 * The endpoint's URL and parameters, made at its first call and reused: k6's interpreter pays for
 * every object, spread and template a request builds (made afresh, they cost k6 some 7 % more CPU a
 * health_check at 64 VUs; docs/development.md), so a call then only sets the headers that change
 * (Idempotency-Key, Authorization) on the object. Safe because k6 reads the parameters during the
 * call (http.* is synchronous here) and keeps no reference to them.
 *
 * Calls must not hang a VU past the scenario: a silent service shows up as failed requests after
 * the run's request timeout (request_timeout_s, --request-timeout; 10 s by default).
 */
function prepare(
  cfg: ScenarioConfig,
  name: string,
  endpoint: string,
  path: string,
  headers?: Record<string, string>,
): Prepared {
  const known = prepared.get(name);
  if (known !== undefined && known.cfg === cfg) return known;
  const made: Prepared = {
    cfg,
    url: cfg.baseUrl + path,
    params: {
      headers: { 'Accept-Encoding': ACCEPT_ENCODING, ...headers },
      tags: { name, endpoint },
      timeout: `${Math.round(cfg.requestTimeoutS * 1000)}ms`,
      responseType: 'text',
    },
    withOptions: new WeakMap(),
  };
  prepared.set(name, made);
  return made;
}

/**
 * The parameters of a call: the endpoint's own, or, with extra tags or expected statuses (only these
 * differ from the scenario-wide callback), a copy made once per options object: a scenario passes
 * the same one at every call (WITH_TOKEN: a callback of about a hundred statuses, which k6 builds
 * anew at each http.expectedStatuses).
 */
function paramsOf(p: Prepared, opts: CallOptions | undefined): K6Params {
  if (opts === undefined || (opts.tags === undefined && opts.expect === undefined)) return p.params;
  let own = p.withOptions.get(opts);
  if (own === undefined) {
    own = { ...p.params, headers: { ...p.params.headers }, tags: { ...p.params.tags, ...opts.tags } };
    if (opts.expect !== undefined) own.responseCallback = http.expectedStatuses(...opts.expect);
    p.withOptions.set(opts, own);
  }
  return own;
}

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

// Each VU (and setup) runs this module's top level once: a random prefix of its own, 96 bits.
const keyPrefix = hex(crypto.randomBytes(12));
let keysIssued = 0;

/**
 * Lets Go's transport send a POST again when the pooled connection it went out on was closed by
 * the server while idle, before any answer byte (Go replays only GET-like requests or ones with
 * this header; src/http/replay.ts has the rule and why it is safe for each endpoint). Unique, so
 * a service that honours the key never mistakes one call for another, across runs too: the VU's
 * random prefix and a count of its keys, 32 hex digits as 16 random bytes were. Sixteen random
 * bytes a request turned to hex by k6's interpreter cost about as much CPU as the request.
 */
const nextKey = (): string => keyPrefix + (++keysIssued).toString(16).padStart(8, '0');

/** §4.1: POST /tokens with {"token": {"client_id", "client_secret"}}. */
export function postTokens(cfg: ScenarioConfig, creds: Credentials, opts?: CallOptions): Res {
  const body = JSON.stringify({ token: { client_id: creds.clientId, client_secret: creds.clientSecret } });
  const call = prepare(cfg, 'POST /tokens', 'tokens.issue', '/tokens', JSON_HEADERS);
  const params = paramsOf(call, opts);
  params.headers['Idempotency-Key'] = nextKey();
  return http.post(call.url, body, params);
}

/** §4.2: no body and no credentials. */
export function healthCheck(cfg: ScenarioConfig, opts?: CallOptions): Res {
  const call = prepare(cfg, 'POST /tokens/health_check', 'tokens.health_check', '/tokens/health_check');
  const params = paramsOf(call, opts);
  params.headers['Idempotency-Key'] = nextKey();
  return http.post(call.url, null, params);
}

/** §4.3: the method is not given by the spec (CES_VALIDATE_METHOD, default GET); no body. */
export function validateToken(cfg: ScenarioConfig, token: string, opts?: CallOptions): Res {
  const method = cfg.validateMethod;
  const call = prepare(cfg, `${method} /tokens/validate`, 'tokens.validate', '/tokens/validate', ACCEPT_JSON);
  const params = paramsOf(call, opts);
  params.headers.Authorization = `Bearer ${token}`;
  if (method !== 'GET') params.headers['Idempotency-Key'] = nextKey();
  return http.request(method, call.url, null, params);
}

/** §4.4: /v1/<endpoint> with the user's method and payload. */
export function callBusiness(cfg: ScenarioConfig, which: BusinessEndpoint, token: string, opts?: CallOptions): Res {
  const { method, body } = cfg.business[which];
  const hasBody = body !== null && method !== 'GET';
  const headers = hasBody ? JSON_HEADERS : ACCEPT_JSON;
  const call = prepare(cfg, `${method} /v1/${which}`, `business.${which}`, `/v1/${which}`, headers);
  const params = paramsOf(call, opts);
  params.headers.Authorization = `Bearer ${token}`;
  if (method !== 'GET') params.headers['Idempotency-Key'] = nextKey();
  return http.request(method as HttpMethod, call.url, hasBody ? JSON.stringify(body) : null, params);
}

/** The parsed JSON body, or undefined when the body is not JSON. */
/** The endpoint whose limit is sized (config rate_limit.endpoint), called once. */
export function callRateLimitEndpoint(cfg: ScenarioConfig, token: string, opts?: CallOptions): Res {
  switch (cfg.rateLimitEndpoint) {
    case 'tokens.issue':
      return postTokens(cfg, { clientId: cfg.clientId, clientSecret: cfg.clientSecret }, opts);
    case 'tokens.validate':
      return validateToken(cfg, token, opts);
    case 'business.evaluation':
      return callBusiness(cfg, 'evaluation', token, opts);
    case 'business.ach_transactions':
      return callBusiness(cfg, 'ach_transactions', token, opts);
  }
}

export function jsonBody(res: Res): unknown {
  if (typeof res.body !== 'string' || res.body === '') return undefined;
  try {
    return JSON.parse(res.body);
  } catch {
    return undefined;
  }
}

/** §7: an error body is a JSON object with a string `error` (and, when given, exactly that text). */
export function isErrorBody(res: Res, text?: string): boolean {
  const error = errorTextOf(jsonBody(res));
  return error !== undefined && (text === undefined || error === text);
}
