// Before any check: can we reach the target and do we trust its certificate? Failing here is the
// contract's exit 3, with one line saying what happened and what to do, rather than thirty checks
// erroring. Only a TLS-level refusal (an alert, a protocol version the service will not speak)
// counts as reachable: that is the TLS checks' finding to report, not a reason to stop.

import { connect } from 'node:tls';
import { rootCertificates } from 'node:tls';
import { isIP } from 'node:net';
import { HarnessError } from '../errors.js';
import type { Target } from '../config/target.js';

const TIMEOUT_MS = 10_000;

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
]);

const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);

/** What a connection error means for a user, and what to do; code → [what happened, fix]. */
const UNREACHABLE: Record<string, [string, string]> = {
  ECONNREFUSED: ['connection refused: nothing listens there', 'check the URL and port, and that the service is up'],
  ECONNRESET: ['the connection was closed or reset before the TLS handshake finished', 'check that the port speaks HTTPS and that no proxy or firewall cuts the connection'],
  EPIPE: ['the connection was closed before the TLS handshake finished', 'check that the port speaks HTTPS and that no proxy or firewall cuts the connection'],
  ENOTFOUND: ['the host name does not resolve', 'check the host name in the URL and your DNS'],
  EAI_AGAIN: ['the host name could not be resolved (DNS did not answer)', 'check your DNS and network'],
  EAI_FAIL: ['the host name could not be resolved (DNS failure)', 'check your DNS and network'],
  EHOSTUNREACH: ['no route to the host', 'check the network, a VPN or proxy'],
  ENETUNREACH: ['the network is unreachable', 'check the network, a VPN or proxy'],
};

export function hostAndPort(baseUrl: string): { host: string; port: number; servername?: string } {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, port: url.port ? Number(url.port) : 443, ...(isIP(host) ? {} : { servername: host }) };
}

interface Attempt {
  baseUrl: string;
  host: string;
  /** The TCP connection was up: the silence or the failure came after it. */
  connected: boolean;
  /** Our own timer ended the attempt. */
  timedOut: boolean;
  timeoutMs: number;
}

/** The exit-3 error for a failed handshake attempt, or undefined when the target is reachable. */
export function preflightError(err: NodeJS.ErrnoException, a: Attempt): HarnessError | undefined {
  const code = err.code ?? 'ERROR';
  const seconds = `${a.timeoutMs / 1000} s`;
  if (a.timedOut) {
    return a.connected
      ? new HarnessError('TARGET_UNREACHABLE', `${a.baseUrl} accepted the connection but completed no TLS handshake within ${seconds}; check that the port speaks HTTPS and the service is not stuck`)
      : new HarnessError('TARGET_UNREACHABLE', `cannot reach ${a.baseUrl}: no connection within ${seconds}; check the URL, the network and that the service is up`);
  }
  if (UNTRUSTED.has(code)) {
    return new HarnessError('CERT_UNTRUSTED', `the certificate of ${a.baseUrl} is not trusted (${code}: ${err.message}); pass --ca FILE (or ca_file in the config) with the CA that signed it`);
  }
  if (WRONG_NAME.has(code)) {
    return new HarnessError('CERT_UNTRUSTED', `the certificate of ${a.baseUrl} is not issued for ${a.host} (${code}: ${err.message}); use a URL with a host name the certificate names`);
  }
  // Reachable, and the handshake failed for protocol reasons: the TLS checks say why.
  if (code.startsWith('ERR_SSL') || code === 'EPROTO') return undefined;
  const [what, fix] = UNREACHABLE[code] ?? [err.message, 'check the URL, the network and that the service is up'];
  return new HarnessError('TARGET_UNREACHABLE', `cannot reach ${a.baseUrl} (${code}: ${what}); ${fix}`);
}

export async function preflight(target: Target, options: { timeoutMs?: number } = {}): Promise<void> {
  const { host, port, servername } = hostAndPort(target.baseUrl);
  const attempt: Attempt = { baseUrl: target.baseUrl, host, connected: false, timedOut: false, timeoutMs: options.timeoutMs ?? TIMEOUT_MS };
  await new Promise<void>((resolve, reject) => {
    const socket = connect({
      host,
      port,
      ...(servername ? { servername } : {}),
      ca: target.caPem ? [...rootCertificates, target.caPem] : undefined,
      rejectUnauthorized: true,
      // Deliberately permissive on versions: a service that wrongly speaks TLS 1.2 is reachable, and
      // the TLS checks, not this preflight, must be the ones to say it is non-conformant.
      minVersion: 'TLSv1.2',
    });
    socket.once('connect', () => (attempt.connected = true));
    // Covers the TCP connect and the handshake both: a server that accepts and never answers included.
    const timer = setTimeout(() => {
      attempt.timedOut = true;
      socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    }, attempt.timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    // `on`, not `once`: a second error (a reset after our own end()) must not go unhandled.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const error = preflightError(err, attempt);
      if (error) reject(error);
      else resolve();
    });
  });
}
