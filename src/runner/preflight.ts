// Before any check: can we reach the target and do we trust its certificate? Failing here is the
// contract's exit 3, with one line saying which and what to do, rather than thirty checks erroring.

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
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

export function hostAndPort(baseUrl: string): { host: string; port: number; servername?: string } {
  const url = new URL(baseUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { host, port: url.port ? Number(url.port) : 443, ...(isIP(host) ? {} : { servername: host }) };
}

export async function preflight(target: Target): Promise<void> {
  const { host, port, servername } = hostAndPort(target.baseUrl);
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
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), TIMEOUT_MS);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.end();
      resolve();
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      const code = err.code ?? 'ERROR';
      if (UNTRUSTED.has(code)) {
        reject(new HarnessError('CERT_UNTRUSTED', `the certificate of ${target.baseUrl} is not trusted (${code}: ${err.message}); pass --ca FILE (or ca_file in the config) with the CA that signed it`));
      } else if (code.startsWith('ERR_SSL') || code === 'ECONNRESET' || code === 'EPROTO') {
        // Reachable, but the handshake failed for protocol reasons: let the checks say why.
        resolve();
      } else {
        reject(new HarnessError('TARGET_UNREACHABLE', `cannot reach ${target.baseUrl} (${code}: ${err.message}); check the URL, the network and that the service is up`));
      }
    });
  });
}
