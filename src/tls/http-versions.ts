// Which HTTP versions the service offers by ALPN. A client offering h2 and http/1.1 together (as
// the checks' client, k6 and browsers do) learns only the service's choice; offering each alone
// says whether the other is there too. Informational: the spec names no HTTP version.

import type { HttpVersion } from '../http/dispatcher.js';
import type { TlsEndpoint } from './endpoint.js';
import { PROBE_TIMEOUT_MS } from './matrix.js';
import { handshake } from './handshake.js';

/**
 * The versions a handshake offering each alone settled on, HTTP/2 first; undefined when neither
 * handshake completed (nothing to say: the TLS checks say why). A server that does no ALPN
 * serves HTTP/1.1 over a completed handshake, which RFC 7301 allows.
 */
export async function offeredHttpVersions(
  endpoint: TlsEndpoint,
  signal?: AbortSignal,
): Promise<HttpVersion[] | undefined> {
  const offer = (version: HttpVersion) =>
    handshake({
      host: endpoint.host,
      port: endpoint.port,
      ...(endpoint.servername ? { servername: endpoint.servername } : {}),
      alpn: [version],
      readCertificate: false,
      timeoutMs: PROBE_TIMEOUT_MS,
      ...(signal ? { signal } : {}),
    });
  const [h2, h1] = await Promise.all([offer('h2'), offer('http/1.1')]);
  if (!h2.ok && !h1.ok) return undefined;
  return [
    ...(h2.alpnProtocol === 'h2' ? ['h2' as const] : []),
    ...(h1.ok && h1.alpnProtocol !== 'h2' ? ['http/1.1' as const] : []),
  ];
}
