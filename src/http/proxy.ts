// Which proxy, if any, a request to the target goes through: HTTPS_PROXY / HTTP_PROXY / NO_PROXY
// (lower-case first, as curl and undici read them), decided once per target so the preflight's
// tunnel and the client's pool agree. The NO_PROXY matching is undici's EnvHttpProxyAgent's: a
// host, a domain suffix (`.example.test`, `*.example.test`, `example.test` all cover its
// subdomains), an optional `:port`, or `*` for everything; no CIDR ranges.

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

const first = (env: NodeJS.ProcessEnv, ...names: string[]): string | undefined =>
  names.map((n) => env[n]?.trim()).find((v) => v !== undefined && v !== '');

/**
 * The proxy URL requests to the target should go through, or undefined for a direct connection.
 * The built-in emulator is always reached directly: it listens on this machine's loopback, which
 * a proxy cannot reach, and `npm start` must work in a shell that has HTTPS_PROXY set.
 */
export function proxyFor(target: { baseUrl: string; emulated?: boolean }, env: NodeJS.ProcessEnv): string | undefined {
  if (target.emulated) return undefined;
  const url = new URL(target.baseUrl);
  const httpProxy = first(env, 'http_proxy', 'HTTP_PROXY');
  // As undici and curl: an https URL without HTTPS_PROXY goes through HTTP_PROXY when there is one.
  const proxy = url.protocol === 'https:' ? (first(env, 'https_proxy', 'HTTPS_PROXY') ?? httpProxy) : httpProxy;
  if (proxy === undefined) return undefined;
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return bypassed(host, port, first(env, 'no_proxy', 'NO_PROXY') ?? '') ? undefined : proxy;
}

function bypassed(host: string, port: number, noProxy: string): boolean {
  if (noProxy === '*') return true;
  for (const entry of noProxy.split(/[,\s]/).filter(Boolean)) {
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const name = (withPort ? withPort[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (withPort && Number(withPort[2]) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** A proxy URL as it may be shown: scheme, host and port, never the `user:password@` it may carry. */
export function shownProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the proxy (its URL does not parse)';
  }
}
