// The certificates an earlier `serve --tls-dir DIR` left in DIR, to serve again. A restarted
// emulator with a new CA looks, to a run history, like a service that swapped its certificate
// (tls.certificate-valid's issuer changes), so every restart was reported as a fact change.
// Anything unusable (missing, not a regular file, not PEM, a key that does not match, expiring,
// not for this host) means "make new ones", as before: the folder is the emulator's own.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { join } from 'node:path';
import { readUserFile } from '../../fs/user-file.js';
import { subjectAltNames, type CertificateSet } from './generate.js';

const MAX_PEM_BYTES = 64 * 1024;
/** A certificate with less than this left is replaced rather than served into its expiry. */
const MIN_REMAINING_MS = 24 * 3600 * 1000;

export function existingCertificates(dir: string, host: string, nowMs = Date.now()): CertificateSet | undefined {
  try {
    const read = (name: string) =>
      readUserFile(join(dir, name), { what: '--tls-dir', maxBytes: MAX_PEM_BYTES, fix: '' });
    const set: CertificateSet = { caPem: read('ca.pem'), certPem: read('server.pem'), keyPem: read('server-key.pem') };
    const ca = new X509Certificate(set.caPem);
    const cert = new X509Certificate(set.certPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return undefined;
    if (!cert.checkPrivateKey(createPrivateKey(set.keyPem))) return undefined;
    for (const c of [ca, cert]) {
      if (Date.parse(c.validFrom) > nowMs || Date.parse(c.validTo) - nowMs < MIN_REMAINING_MS) return undefined;
    }
    const coversHost = subjectAltNames(host).every((n) =>
      n.type === 'ip' ? cert.checkIP(n.value) : cert.checkHost(n.value, { wildcards: false }),
    );
    return coversHost ? set : undefined;
  } catch {
    return undefined;
  }
}
