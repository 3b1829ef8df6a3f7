// Where the TLS probes go, read from the target's base URL once so every TLS check agrees.

import { isIP } from 'node:net';
import type { Target } from '../config/target.js';
import { requestTimeoutMs } from '../http/dispatcher.js';

export interface TlsEndpoint {
  host: string;
  port: number;
  /** The hostname for SNI and certificate matching; absent for an IP address. */
  servername?: string;
  caPem?: string;
  /** "api.example.test:443", for messages. */
  where: string;
  /** False when the base URL is http://: there is nothing to probe, and that alone breaks §5.8. */
  https: boolean;
  /** The run's per-request timeout (request_timeout_s, --request-timeout): a calibration's ceiling. */
  requestTimeoutMs: number;
}

export function tlsEndpoint(target: Pick<Target, 'baseUrl' | 'caPem' | 'requestTimeoutS'>): TlsEndpoint {
  const url = new URL(target.baseUrl);
  const https = url.protocol === 'https:';
  // URL keeps IPv6 literals bracketed; sockets want them bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : https ? 443 : 80;
  return {
    host,
    port,
    ...(isIP(host) === 0 ? { servername: host } : {}),
    ...(target.caPem ? { caPem: target.caPem } : {}),
    where: `${url.hostname}:${port}`,
    https,
    requestTimeoutMs: requestTimeoutMs(target),
  };
}
