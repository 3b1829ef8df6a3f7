// The certificates the harness serves itself, made fresh in memory: a CA and the server certificate
// it signs (the emulator, and the loopback servers of the tests), or one self-signed server
// certificate (the TLS calibration servers, which the probe does not verify). ECDSA P-256 through
// node:crypto: a key pair takes well under a millisecond, and one curve serves TLS 1.0 to 1.3.

import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { certificateDer, certificatePem, type AltName, type DistinguishedName } from './x509.js';

export type { AltName, DistinguishedName } from './x509.js';

export interface ServerCertificate {
  /** The server certificate (PEM), for `cert` of tls.createServer. */
  certPem: string;
  /** Its private key (PKCS#8 PEM), for `key` of tls.createServer. */
  keyPem: string;
  notBefore: Date;
  notAfter: Date;
}

export interface Pki extends ServerCertificate {
  /** The CA certificate to trust (PEM). */
  caPem: string;
}

export interface ServerCertificateOptions {
  subject: DistinguishedName;
  /** The names a client may dial; Go's verifier ignores the common name. */
  altNames: readonly AltName[];
  /** Default: an hour before now, so a client whose clock is a little behind still accepts it. */
  notBefore?: Date;
  /** Default: 365 days after now. */
  notAfter?: Date;
  /** Default: Date.now(). */
  nowMs?: number;
}

export interface PkiOptions extends ServerCertificateOptions {
  ca: DistinguishedName;
  /**
   * An intermediate CA between the root and the server certificate, as public CAs issue them:
   * certPem then holds the chain a server sends (leaf, then intermediate) and caPem the root alone.
   */
  intermediate?: DistinguishedName;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A CA and a server certificate it signed, directly or through an intermediate. */
export function mintPki(o: PkiOptions): Pki {
  return mintPkiWithIssuer(o).pki;
}

/**
 * A CA and a server certificate it signed, and the CA's means to sign more: environments that
 * share one CA but not one validity (the emulator's production certificate about to expire).
 * With an intermediate, every server certificate comes with the chain a server sends.
 */
export function mintPkiWithIssuer(o: PkiOptions): {
  pki: Pki;
  issue(leaf: ServerCertificateOptions): ServerCertificate;
} {
  const window = validity(o);
  const { notBefore, notAfter, nowMs } = window;
  // The CAs are valid now and throughout the leaf's window, so a test of an expired or not yet
  // valid certificate fails on the leaf, never on a CA.
  const caWindow = {
    notBefore: new Date(Math.min(notBefore.getTime(), nowMs - HOUR_MS)),
    notAfter: new Date(Math.max(notAfter.getTime(), nowMs + 30 * DAY_MS)),
  };
  const root = { key: newKeyPair(), name: o.ca };
  const ca = (subject: Issuer, issuer: Issuer, pathLength: number) =>
    certificateDer({
      serialNumber: serialNumber(),
      subject: subject.name,
      subjectKey: subject.key.publicKey,
      issuer: issuer.name,
      issuerKey: issuer.key,
      ...caWindow,
      profile: { ca: true, pathLength },
    });
  const caPem = certificatePem(ca(root, root, o.intermediate ? 1 : 0));
  const intermediate = o.intermediate ? { key: newKeyPair(), name: o.intermediate } : undefined;
  const chainPem = intermediate ? certificatePem(ca(intermediate, root, 0)) : '';
  const issue = (leaf: ServerCertificateOptions, leafWindow: Window): ServerCertificate => {
    const cert = server(leaf, leafWindow, intermediate ?? root);
    return { ...cert, certPem: cert.certPem + chainPem };
  };
  return { pki: { caPem, ...issue(o, window) }, issue: (leaf) => issue(leaf, validity(leaf)) };
}

/** A server certificate signed by its own key: for servers whose certificate nobody verifies. */
export function mintSelfSigned(o: ServerCertificateOptions): ServerCertificate {
  return server(o, validity(o));
}

interface Window {
  notBefore: Date;
  notAfter: Date;
  nowMs: number;
}

interface Issuer {
  key: KeyPair;
  name: DistinguishedName;
}

/** Without an issuer, the certificate signs itself. */
function server(o: ServerCertificateOptions, { notBefore, notAfter }: Window, issuer?: Issuer): ServerCertificate {
  const key = newKeyPair();
  const der = certificateDer({
    serialNumber: serialNumber(),
    subject: o.subject,
    subjectKey: key.publicKey,
    issuer: issuer?.name ?? o.subject,
    issuerKey: issuer?.key ?? key,
    notBefore,
    notAfter,
    profile: { ca: false, altNames: o.altNames },
  });
  const keyPem = key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem: certificatePem(der), keyPem, notBefore, notAfter };
}

function validity(o: ServerCertificateOptions): Window {
  const nowMs = o.nowMs ?? Date.now();
  const notBefore = o.notBefore ?? new Date(nowMs - HOUR_MS);
  const notAfter = o.notAfter ?? new Date(nowMs + 365 * DAY_MS);
  if (notAfter.getTime() <= notBefore.getTime()) {
    throw new RangeError(
      `a certificate must end after it starts: ${notBefore.toISOString()} to ${notAfter.toISOString()}`,
    );
  }
  return { notBefore, notAfter, nowMs };
}

interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

/**
 * A fresh P-256 pair, encoded by the generator and read back into keys of their own. Node 20 can
 * deadlock a thread that exports a key the generator handed out: a garbage collection during the
 * export (which holds the key's lock) finalises the generator's job, whose destructor takes the same
 * lock. A built-in emulator thread hung so in a `run` (gdb: ExportJWKEcKey → GC → ~KeyGenJob →
 * pthread_mutex_lock), and the CLI waited on it forever. Keys read back share no lock with a job.
 */
function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  return {
    publicKey: createPublicKey({ key: publicKey, format: 'der', type: 'spki' }),
    privateKey: createPrivateKey({ key: privateKey, format: 'der', type: 'pkcs8' }),
  };
}

// 16 random bytes, first byte 0x40 to 0x7f: the top bit clear keeps the INTEGER positive, and a
// non-zero first byte keeps all 16 (RFC 5280 asks for positive serials of at most 20 bytes).
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40;
  return bytes;
}
