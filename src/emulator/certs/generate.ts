// A throwaway CA and a server certificate signed by it, made at every start. ECDSA P-256 because
// key generation is milliseconds. The chain has to satisfy Go's verifier too (k6 trusts ca.pem via
// SSL_CERT_FILE), which is stricter than Node's: a critical CA basicConstraints with keyCertSign, a
// leaf with SAN (Go ignores the CN), serverAuth, and positive serial numbers.

import { randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';

export interface CertificateSet {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** 16 random bytes with the top bit clear (a positive INTEGER) and a non-zero first byte (minimal DER). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x10;
  return bytes.toString('hex');
}

type SanEntry = { type: 'dns' | 'ip'; value: string };

/** localhost in both address families, plus the listen host when it names one machine. */
export function subjectAltNames(host: string): SanEntry[] {
  const names: SanEntry[] = [
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
    { type: 'ip', value: '::1' },
  ];
  const unspecified = host === '' || host === '0.0.0.0' || host === '::';
  const known = names.some((n) => n.value === host);
  if (!unspecified && !known) names.push({ type: isIP(host) ? 'ip' : 'dns', value: host });
  return names;
}

export async function generateCertificates(host: string, nowMs = Date.now()): Promise<CertificateSet> {
  // @peculiar/x509 registers its algorithms through tsyringe, which needs the Reflect metadata
  // polyfill loaded first.
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  // Node's webcrypto is the Web Crypto API; x509's typings name the DOM's type for it.
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const subtle = webcrypto.subtle;
  // An hour of slack so a client whose clock is a little behind still accepts the certificate.
  const notBefore = new Date(nowMs - HOUR_MS);
  const notAfter = new Date(nowMs + 365 * DAY_MS);
  const keyPair = () => subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

  const caKeys = await keyPair();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: 'CN=ces-harness emulator CA, O=ces-harness',
    keys: caKeys,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const leafKeys = await keyPair();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=localhost, O=ces-harness',
    issuer: ca.subject,
    publicKey: leafKeys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(subjectAltNames(host)),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const pkcs8 = await subtle.exportKey('pkcs8', leafKeys.privateKey);
  return {
    caPem: ca.toString('pem'),
    certPem: leaf.toString('pem'),
    keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}
