// The connection pool to one target: which CAs it trusts, how long a connect may take, which HTTP
// versions it offers, and whether it goes through the proxy the environment names. Kept apart from
// the client because building trust is costly and subtle (see below), and the rate-limit probe and
// the checks share one pool per target.

import type { Dispatcher } from 'undici';
import type * as UndiciTypes from 'undici';
import { Agent, buildConnector, Client, Pool, proxyAgentClass } from './undici.js';
import type { Target } from '../config/target.js';
import { proxyFor } from './proxy.js';
import { clientContext } from './secure-contexts.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

/** The target's request timeout (request_timeout_s, --request-timeout), in milliseconds. */
export const requestTimeoutMs = (target: Pick<Target, 'requestTimeoutS'>): number =>
  target.requestTimeoutS === undefined ? DEFAULT_TIMEOUT_MS : Math.round(target.requestTimeoutS * 1000);

/** The HTTP version ALPN settled on for a connection: `h2`, or `http/1.1` (also when the server does no ALPN). */
export type HttpVersion = 'h2' | 'http/1.1';

/** Connections a target's pool keeps at most, unless told otherwise. */
export const DEFAULT_CONNECTIONS = 16;

export function dispatcherFor(
  target: Pick<Target, 'baseUrl' | 'caPem' | 'requestTimeoutS' | 'emulated'>,
  connections = DEFAULT_CONNECTIONS,
  env: NodeJS.ProcessEnv = process.env,
  onConnected: (version: HttpVersion) => void = () => {},
): Dispatcher {
  // One context for every connection of the pool, and the same one the preflight and the
  // certificate check use for this CA: given as `ca`, tls.connect would parse the ~150 roots
  // again for every new connection (about 30-60 ms of blocked event loop each), which stalls
  // every other request in the process and skews anything timed, such as the rate-limit probe.
  // ALPN offers h2 beside http/1.1, as browsers, curl and most SDKs do: a service behind a gateway
  // that speaks HTTP/2 is then met the way its clients meet it.
  const tls = {
    secureContext: clientContext({ caPem: target.caPem }),
    rejectUnauthorized: true,
    timeout: requestTimeoutMs(target),
    allowH2: true,
  };
  // Every pool's connections pass through here, so the client learns what ALPN chose for each.
  const factory = (origin: string | URL, options: object): Dispatcher => {
    const { connect } = options as { connect?: unknown };
    const observed =
      typeof connect === 'function' ? telling(connect as UndiciTypes.buildConnector.connector, onConnected) : connect;
    const opts = { ...options, connect: observed } as UndiciTypes.Pool.Options;
    return connections === 1 ? new Client(origin, opts) : new Pool(origin, opts);
  };
  const options = { connections, keepAliveTimeout: 10_000, allowH2: true, factory };
  const proxy = proxyFor(target, env);
  if (proxy === undefined) return new Agent({ ...options, connect: buildConnector(tls) });
  // Corporate CI reaches the service only through its proxy. HTTPS goes through a CONNECT tunnel,
  // so the proxy sees the host and port and nothing else; the TLS inside the tunnel is ours and
  // trusts exactly what a direct connection trusts (requestTls: ProxyAgent does not use `connect`
  // for the tunnelled side). The proxy's own URL may carry user:password, sent as
  // Proxy-Authorization to the proxy only.
  const ProxyAgent = proxyAgentClass();
  return new ProxyAgent({ ...options, uri: proxy, requestTls: tls });
}

function telling(
  connect: UndiciTypes.buildConnector.connector,
  onConnected: (version: HttpVersion) => void,
): UndiciTypes.buildConnector.connector {
  return (opts, callback) =>
    connect(opts, (...args) => {
      const socket = args[1] as { alpnProtocol?: string | false } | null;
      if (socket) onConnected(socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1');
      callback(...args);
    });
}
