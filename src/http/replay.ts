// When a request may go out a second time because its connection died under it. HTTP/1.1 lets
// either side close an idle keep-alive connection at any moment (RFC 9112 §9.5), and gateways do
// it without a word (no Keep-Alive: timeout=N), so a pooled connection can be closed by the server
// just as we send on it: the request fails with "other side closed" and no answer byte.
//
// The rule is Go's net/http (which k6 uses), so the checker and the load run agree: send again,
// only when the connection had already carried an answer (it was reused: the server closed
// it while idle, before our request reached it) and nothing of this request's answer arrived, and
// only a request that is safe to replay (RFC 9110 §9.2.2): a safe method, a token endpoint
// (§4.1 answers the same token to a repeated POST /tokens; health_check and validate only read),
// or one that carries an Idempotency-Key (the business calls, so a service that honours the key
// deduplicates even the case where it did process the request before the connection died).
// Again while the next pooled connection was closed the same way, at most once for each connection
// of the pool: a new connection's failure is never replayed, so the replays end.

import { TOKEN_PATHS } from '../spec/endpoints.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

export const IDEMPOTENCY_KEY = 'idempotency-key';

export function replaySafe(method: string, path: string, headers: Record<string, string>): boolean {
  return (
    SAFE_METHODS.has(method) ||
    (TOKEN_PATHS as readonly string[]).includes(path) ||
    Object.keys(headers).some((h) => h.toLowerCase() === IDEMPOTENCY_KEY)
  );
}

/** undici's "other side closed" on a connection that had carried an earlier answer (its socket read bytes before). */
export function closedWhileReused(err: unknown): boolean {
  const e = err as { code?: string; socket?: { bytesRead?: number } } | undefined;
  return e?.code === 'UND_ERR_SOCKET' && (e.socket?.bytesRead ?? 0) > 0;
}
