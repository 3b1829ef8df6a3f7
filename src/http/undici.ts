// The parts of undici the harness uses, each loaded from its own file. undici's index loads all of
// it at once (fetch, WebSocket, EventSource, mocks, caches, interceptors): about 150 ms of CPU at
// every CLI start, before the first request, of which these parts are a third. undici 7 declares
// no "exports" map, so its lib/ files are reachable; test/http/undici-parts.test.ts keeps each
// export here the same object the index exports, so an undici that moves a file fails a test
// rather than a run. Types still come from the package's own declarations.

import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const load = createRequire(import.meta.url);

export const Agent: typeof Undici.Agent = load('undici/lib/dispatcher/agent.js');
export const Client: typeof Undici.Client = load('undici/lib/dispatcher/client.js');
export const Pool: typeof Undici.Pool = load('undici/lib/dispatcher/pool.js');
/** Loaded when a proxy is in use: with its SOCKS parts it is ~10 ms of every start that never needs it. */
export const proxyAgentClass = (): typeof Undici.ProxyAgent => load('undici/lib/dispatcher/proxy-agent.js');
export const buildConnector: typeof Undici.buildConnector = load('undici/lib/core/connect.js');

// What undici's index does to give every dispatcher its request(), stream()… methods.
const dispatcherClass: { prototype: object } = load('undici/lib/dispatcher/dispatcher.js');
Object.assign(dispatcherClass.prototype, load('undici/lib/api/index.js'));

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, 'origin' | 'path'> & { dispatcher: Undici.Dispatcher };

/** undici's request(url, options) for a given dispatcher: the URL split as its index splits it. */
export function request(
  url: string,
  { dispatcher, ...options }: RequestOptions,
): Promise<Undici.Dispatcher.ResponseData> {
  const parsed = new URL(url);
  return dispatcher.request({
    ...options,
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
  });
}
