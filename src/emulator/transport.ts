// How a listener talks, apart from what it answers: the parts a gateway in front of the service
// decides. The conformant default is the emulator's own; profiles (profiles/) change them the way
// real deployments do, which the spec allows.

import type { ContentCoding } from '../http/content-coding.js';

export interface Transport {
  /** How long an idle keep-alive connection stays open, ms (gateways often close them within a second or two). */
  keepAliveMs: number;
  /**
   * Whether answers say so (`Keep-Alive: timeout=N`, as Node does). nginx, cloud load balancers
   * and most gateways say nothing, so a client learns of the close only when its next request
   * meets a dead connection.
   */
  advertiseKeepAlive: boolean;
  /**
   * After each answer: keep the connection, close it saying so (`Connection: close`), or close it
   * without a word (a gateway or proxy that does not pool its client connections).
   */
  afterAnswer: 'keep' | 'close-announced' | 'close-silently';
  /** Added before each answer, ms: uniform in meanMs ± jitterMs (a service far away, in one direction). */
  answerDelay: { meanMs: number; jitterMs: number };
  /**
   * Each request holds the service's one worker this long before it is decided, ms (0: none, as
   * many at once as come): requests wait in line for it, refused ones too, and the service takes
   * at most 1000 / workMs a second (a single-threaded app server, or a process sharing its core).
   */
  workMs: number;
  /** Who signs the server certificate: the root the client trusts, or an intermediate sent beside the leaf. */
  chain: 'root' | 'intermediate';

  // What the HTTP layer offers (profiles http2, compression).
  /** HTTP/2 offered by ALPN beside HTTP/1.1, as most gateways and CDNs do. */
  http2: boolean;
  /** Codings answers are compressed with when the request's Accept-Encoding allows one, preferred first; none when empty. */
  compression: readonly ContentCoding[];

  /**
   * Added before each business answer, ms: a service whose business work takes its time (the
   * larger of this and EmulatorOptions.businessLatencyMs applies).
   */
  businessLatencyMs: number;
  /**
   * Added before each answer to POST /tokens, ms: a service that checks the client secret with a
   * slow key-derivation function, or a serverless sandbox, issues slowly while validating stays a
   * lookup (profile slow-token-issue).
   */
  tokenIssueLatencyMs: number;
}

/** Long enough for k6 and undici to reuse connections, short enough not to hoard sockets. */
export const DEFAULT_TRANSPORT: Transport = {
  keepAliveMs: 5_000,
  advertiseKeepAlive: true,
  afterAnswer: 'keep',
  answerDelay: { meanMs: 0, jitterMs: 0 },
  workMs: 0,
  chain: 'root',

  http2: false,
  compression: [],
  businessLatencyMs: 0,
  tokenIssueLatencyMs: 0,
};
