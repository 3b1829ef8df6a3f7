// A CONNECT tunnel through an HTTP(S) proxy to host:port, as a socket ready for TLS: what the
// preflight handshakes over when the target is reached through HTTPS_PROXY. undici opens its own
// tunnels for requests (dispatcher.ts); this is the same thing for a bare node:tls handshake.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';

export interface TunnelError extends NodeJS.ErrnoException {
  /** The proxy answered, but not 200: its status. */
  proxyStatus?: number;
}

export function openTunnel(proxy: string, host: string, port: number, timeoutMs: number): Promise<Socket> {
  const url = new URL(proxy);
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const auth = url.username
    ? {
        'proxy-authorization': `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`,
      }
    : {};
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({
      method: 'CONNECT',
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path: authority,
      headers: { host: authority, ...auth },
      timeout: timeoutMs,
      agent: false,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      const err: TunnelError = new Error(`the proxy answered ${res.statusCode} to CONNECT ${authority}`);
      err.code = 'EPROXY';
      err.proxyStatus = res.statusCode;
      reject(err);
    });
    // Only reached when no CONNECT answer came: the proxy is up but silent.
    req.once('timeout', () =>
      req.destroy(
        Object.assign(new Error(`the proxy did not answer CONNECT within ${timeoutMs / 1000} s`), {
          code: 'ETIMEDOUT',
        }),
      ),
    );
    req.once('error', reject);
    req.end();
  });
}
