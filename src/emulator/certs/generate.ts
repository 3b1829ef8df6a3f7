// The emulator's certificates: a throwaway CA and the server certificate it signs, made at every
// start (minted by src/tls/certs), for the names a client of this emulator may dial. k6 trusts
// ca.pem through SSL_CERT_FILE, so the chain must satisfy Go's verifier as well as Node's.

import { isIP } from 'node:net';
import { mintPkiWithIssuer, type AltName } from '../../tls/certs/mint.js';

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
export function generateCertificates(
  host: string,
  nowMs = Date.now(),
  chain: 'root' | 'intermediate' = 'root',
): CertificateSet {
  return generateIssuingCertificates(host, nowMs, undefined, chain).set;
}

/** A certificate set, and the means to sign another server certificate with the same CA. */
export interface IssuingCertificates {
  set: CertificateSet;
  /** A server certificate from this set's CA (and its intermediate, if any), valid from an hour ago for `days`. */
  issue(days: number): Omit<CertificateSet, 'caPem'>;
}

/** As generateCertificates; `caName` names the CA of another environment (its own key, so another issuer). */
export function generateIssuingCertificates(
  host: string,
  nowMs = Date.now(),
  caName = 'ces-harness emulator CA',
  chain: 'root' | 'intermediate' = 'root',
): IssuingCertificates {
  const subject = { commonName: 'localhost', organization: 'ces-harness' };
  const altNames = subjectAltNames(host);
  const { pki, issue } = mintPkiWithIssuer({
    ca: { commonName: caName, organization: 'ces-harness' },
    ...(chain === 'intermediate'
      ? { intermediate: { commonName: `${caName.replace(/ CA$/, '')} intermediate CA`, organization: 'ces-harness' } }
      : {}),
    subject,
    altNames,
    nowMs,
  });
  return {
    set: { caPem: pki.caPem, certPem: pki.certPem, keyPem: pki.keyPem },
    issue: (days) => {
      const { certPem, keyPem } = issue({
        subject,
        altNames,
        nowMs: Date.now(),
        notAfter: new Date(Date.now() + days * 86_400_000),
      });
      return { certPem, keyPem };
    },
  };
}

/** The first certificate of a chain a server sends: the leaf, without the intermediate after it. */
export function leafOnly(certPem: string): string {
  const end = '-----END CERTIFICATE-----';
  const at = certPem.indexOf(end);
  return at < 0 ? certPem : `${certPem.slice(0, at + end.length)}\n`;
}
