// A throwaway PKI for loopback TLS servers: a self-signed CA and a leaf it signs, both ECDSA P-256
// (fast to generate, and usable from TLS 1.0 through 1.3 so one helper serves every calibration).
// Used by the calibration servers at run time and by the tests; never by a real target.

import { webcrypto } from 'node:crypto';
// tsyringe, under @peculiar/x509, needs the Reflect metadata polyfill loaded first.
import 'reflect-metadata';

export interface TestPki {
  /** The CA certificate to trust (PEM). */
  caPem: string;
  /** The leaf certificate (PEM), for `cert` of tls.createServer. */
  certPem: string;
  /** The leaf's private key (PKCS#8 PEM), for `key` of tls.createServer. */
  keyPem: string;
  /** Leaf expiry, so tests can compare with what the probe reports. */
  notAfter: Date;
}

export interface TestPkiOptions {
  /** DNS names in the leaf's subjectAltName. Default: localhost. */
  dnsNames?: string[];
  /** IP addresses in the leaf's subjectAltName. Default: 127.0.0.1. */
  ipAddresses?: string[];
  /** Default: one hour ago, so a little clock skew does not make a fresh certificate "not yet valid". */
  notBefore?: Date;
  /** Default: 365 days from now. */
  notAfter?: Date;
  commonName?: string;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

// Loaded lazily and once: x509 and its ASN.1 stack take tens of milliseconds to import, and a
// dynamic import keeps the reflect shim above guaranteed to run first.
let x509Module: Promise<typeof import('@peculiar/x509')> | undefined;
const loadX509 = () => (x509Module ??= import('@peculiar/x509'));

// 16-byte serial: top bit clear (a positive INTEGER) and first byte non-zero (minimal DER, which
// strict verifiers such as Go's insist on).
function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return Buffer.from(bytes).toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${b64.trimEnd()}\n-----END ${label}-----\n`;
}

export async function createTestPki(opts: TestPkiOptions = {}): Promise<TestPki> {
  const x509 = await loadX509();
  // x509 types its provider as the DOM Crypto, which this Node-only build has no lib for.
  const crypto = webcrypto as unknown as NonNullable<Parameters<typeof x509.X509CertificateGenerator.create>[1]>;
  const now = Date.now();
  const notBefore = opts.notBefore ?? new Date(now - 3_600_000);
  const notAfter = opts.notAfter ?? new Date(now + 365 * DAY_MS);

  const [caKeys, leafKeys] = await Promise.all([
    crypto.subtle.generateKey(EC, false, ['sign', 'verify']),
    crypto.subtle.generateKey(EC, true, ['sign', 'verify']),
  ]);

  const caName = 'CN=ces-harness test CA';
  const ca = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial(),
      name: caName,
      // The CA outlives the leaf so an expired-leaf test fails on the leaf, not the CA.
      notBefore: new Date(Math.min(notBefore.getTime(), now - 3_600_000)),
      notAfter: new Date(Math.max(notAfter.getTime(), now) + 30 * DAY_MS),
      signingAlgorithm: EC,
      keys: caKeys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const names = [
    ...(opts.dnsNames ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
    ...(opts.ipAddresses ?? ['127.0.0.1']).map((value) => ({ type: 'ip' as const, value })),
  ];
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial(),
      subject: `CN=${opts.commonName ?? names[0]?.value ?? 'localhost'}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: EC,
      publicKey: leafKeys.publicKey,
      signingKey: caKeys.privateKey,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names),
        await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey, false, crypto),
        await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );

  const pkcs8 = await crypto.subtle.exportKey('pkcs8', leafKeys.privateKey);
  return { caPem: ca.toString('pem') + '\n', certPem: leaf.toString('pem') + '\n', keyPem: pem('PRIVATE KEY', pkcs8), notAfter };
}

let shared: Promise<TestPki> | undefined;
/** One PKI per process for the calibration servers: generating is cheap, but not free. */
export const sharedTestPki = (): Promise<TestPki> => (shared ??= createTestPki());
