// The emulator's certificates: a throwaway CA and the server certificate it signs, made at every
// start (minted by src/tls/certs), for the names a client of this emulator may dial. k6 trusts
// ca.pem through SSL_CERT_FILE, so the chain must satisfy Go's verifier as well as Node's.

import { isIP } from 'node:net';
import { mintPki, type AltName } from '../../tls/certs/mint.js';

export interface CertificateSet {
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** localhost in both address families, plus the listen host when it names one machine. */
export function subjectAltNames(host: string): AltName[] {
  const names: AltName[] = [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
  ];
  const unspecified = host === '' || host === '0.0.0.0' || host === '::';
  const known = names.some((n) => n.value === host);
  if (!unspecified && !known) names.push({ type: isIP(host) ? 'ip' : 'dns', value: host });
  return names;
}

/**
 * Valid from an hour ago (a client whose clock is a little behind still accepts it) for 365 days.
 * With `intermediate`, an intermediate CA signs the server certificate and certPem is the chain
 * the server sends (leaf, intermediate); caPem stays the root, all a client trusts.
 */
export function generateCertificates(host: string, nowMs = Date.now(), chain: 'root' | 'intermediate' = 'root'): CertificateSet {
  const { caPem, certPem, keyPem } = mintPki({
    ca: { commonName: 'ces-harness emulator CA', organization: 'ces-harness' },
    ...(chain === 'intermediate' ? { intermediate: { commonName: 'ces-harness emulator intermediate CA', organization: 'ces-harness' } } : {}),
    subject: { commonName: 'localhost', organization: 'ces-harness' },
    altNames: subjectAltNames(host),
    nowMs,
  });
  return { caPem, certPem, keyPem };
}
