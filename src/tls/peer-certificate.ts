// What a probe reports of the server's certificate: names and expiry, flattened to strings for the
// certificate checks and the report, so nothing downstream handles Node's certificate objects.

import { X509Certificate } from 'node:crypto';
import type tls from 'node:tls';

export interface PeerCertificateInfo {
  subject: string;
  issuer: string;
  /** ISO 8601. */
  validTo: string;
  /** Whole days until validTo, rounded down: 0 on the last day, -1 within the day after expiry. */
  daysLeft: number;
  /**
   * SHA-256 of the issuing certificate, when the handshake showed it: two CAs may share a name
   * (every emulator start makes "ces-harness emulator CA"), never a key.
   */
  issuerFingerprint?: string;
  /**
   * The CAs above the issuer, nearest first, as far as the handshake showed them (what the server
   * sent, and the trusted root once verified): for a leaf signed by an intermediate, the root.
   * Empty when the issuer is the root, or when nothing above it is known.
   */
  issuerChain: string[];
  /** The certificate's public key, its type and size ("RSA 2048", "EC P-256", "Ed25519"), when it reads. */
  key?: string;
}

const DAY_MS = 86_400_000;

export function peerCertificateInfo(
  cert: tls.PeerCertificate | Record<string, never>,
): PeerCertificateInfo | undefined {
  if (!cert || !('valid_to' in cert) || !cert.valid_to) return undefined;
  const validTo = new Date(cert.valid_to);
  if (Number.isNaN(validTo.getTime())) return undefined;
  const issuer = issuerOf(cert as tls.PeerCertificate);
  const key = keyOf(cert as tls.PeerCertificate);
  return {
    subject: dn(cert.subject),
    issuer: dn(cert.issuer),
    validTo: validTo.toISOString(),
    daysLeft: Math.floor((validTo.getTime() - Date.now()) / DAY_MS),
    ...(issuer ? { issuerFingerprint: issuer } : {}),
    issuerChain: chainAbove(cert as tls.DetailedPeerCertificate),
    ...(key ? { key } : {}),
  };
}

// OpenSSL's curve names, as clients and CAs write them.
const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const KEY_TYPES: Record<string, string> = {
  rsa: 'RSA',
  'rsa-pss': 'RSA-PSS',
  ec: 'EC',
  ed25519: 'Ed25519',
  ed448: 'Ed448',
};

/** From the DER the handshake carried; a certificate Node cannot parse has no key to speak of. */
function keyOf(cert: tls.PeerCertificate): string | undefined {
  if (!Buffer.isBuffer(cert.raw)) return undefined;
  try {
    const { asymmetricKeyType: type, asymmetricKeyDetails: details } = new X509Certificate(cert.raw).publicKey;
    if (type === undefined) return undefined;
    const size =
      details?.modulusLength ?? (details?.namedCurve ? (CURVES[details.namedCurve] ?? details.namedCurve) : undefined);
    return [KEY_TYPES[type] ?? type, size].filter((x) => x !== undefined).join(' ');
  } catch {
    return undefined;
  }
}

/** Names from the issuer's issuer up; bounded, as a chain of a real service has a handful. */
function chainAbove(leaf: tls.DetailedPeerCertificate): string[] {
  const names: string[] = [];
  let cert = leaf.issuerCertificate as tls.DetailedPeerCertificate | undefined;
  // A self-signed root is its own issuerCertificate: that is where the chain ends.
  for (
    let depth = 0;
    depth < 8 && cert?.issuerCertificate && cert.issuerCertificate.fingerprint256 !== cert.fingerprint256;
    depth++
  ) {
    cert = cert.issuerCertificate;
    names.push(dn(cert.subject));
  }
  return names;
}

/** The issuer certificate's fingerprint, short; a detailed peer certificate carries its issuer. */
function issuerOf(cert: tls.PeerCertificate): string | undefined {
  const issuer = (cert as tls.DetailedPeerCertificate).issuerCertificate;
  const fp = issuer?.fingerprint256;
  return typeof fp === 'string' && fp !== '' ? fp.replace(/:/g, '').slice(0, 16).toLowerCase() : undefined;
}

// Node gives names as objects ({ CN: 'x', O: ['a', 'b'] }); reports want "CN=x, O=a, O=b".
function dn(name: tls.Certificate | undefined): string {
  if (!name) return '';
  return Object.entries(name)
    .flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x) => `${k}=${String(x)}`))
    .join(', ');
}
