// What one request to the service yields, as plain data: the checks, the rate-limit probe and the
// report read these shapes, never undici's. ServiceClient (service-client.ts) produces them.

import type { Advertisement } from '../spec/ratelimit-fields.js';

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
  /**
   * The body or a header holds, in any encoding and under any name, a token issued to this run
   * before this answer arrived (absent: none). What a refusal must never carry.
   */
  carriesIssuedToken?: boolean;
}

export interface SendOptions {
  headers?: Record<string, string>;
  /** A raw body, sent as it is. */
  body?: string;
  /** A body serialized as JSON, with Content-Type: application/json. */
  json?: unknown;
  bearer?: string;
  /** The bearer is a token known to have expired: a call the service must refuse, so production allows it. */
  bearerExpired?: boolean;
  /** False hands 429 answers back instead of waiting them out (for the rate-limit probe). */
  waitOut429?: boolean;
  timeoutMs?: number;
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

/** How a client's requests travelled, as the service chose from what the client offered. */
export interface TransportSeen {
  /** Connections per HTTP version ALPN settled on (`h2`, `http/1.1`). */
  connections: Record<string, number>;
  /** Answers per Content-Encoding (`gzip`, `br`, …; `identity` for none). */
  codings: Record<string, number>;
  /**
   * The tightest rate limit the answers announced (RateLimit-Policy, X-RateLimit-Limit…), read in
   * passing: what cutover sets against sandbox's recommended rate without loading production.
   */
  advertised?: Advertisement;
}
