// An X.509 v3 certificate (RFC 5280 §4.1) from plain fields, signed ECDSA with SHA-256 by
// node:crypto. Two profiles: a CA that may only sign certificates (a root, or an intermediate the
// root signed), and a TLS server certificate (a leaf). The extensions are those strict verifiers insist on: Go's (k6 trusts our CA through
// SSL_CERT_FILE) ignores the common name and wants the host in subjectAltName, serverAuth in
// extendedKeyUsage, and a critical basicConstraints with keyCertSign on the CA.

import { createHash, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  integer,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  time,
  utf8String,
} from './der.js';

export interface DistinguishedName {
  commonName: string;
  organization?: string;
}

/** A subjectAltName entry: what a TLS client compares with the host it dialled. */
export interface AltName {
  type: 'dns' | 'ip';
  value: string;
}

/** pathLength: how many CAs may stand below this one (0: it signs leaves only). */
export type Profile = { ca: true; pathLength?: number } | { ca: false; altNames: readonly AltName[] };

export interface CertificateFields {
  /** Unsigned big-endian bytes; must be positive (see serialNumber in mint.ts). */
  serialNumber: Uint8Array;
  subject: DistinguishedName;
  subjectKey: KeyObject;
  issuer: DistinguishedName;
  /** The issuer's key pair: the private half signs, the public half is named in authorityKeyIdentifier. */
  issuerKey: { privateKey: KeyObject; publicKey: KeyObject };
  notBefore: Date;
  notAfter: Date;
  profile: Profile;
}

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

// KeyUsage bit numbers (RFC 5280 §4.2.1.3).
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

// AlgorithmIdentifier with the parameters left out, as RFC 5758 §3.2 requires for ECDSA.
const ECDSA_WITH_SHA256 = sequence(oid(OID.ecdsaWithSha256));

/** The certificate, DER-encoded. */
export function certificateDer(f: CertificateFields): Buffer {
  const tbs = sequence(
    explicit(0, integer(2)), // version: v3, the one that has extensions
    integer(f.serialNumber),
    ECDSA_WITH_SHA256,
    name(f.issuer),
    sequence(time(f.notBefore), time(f.notAfter)),
    name(f.subject),
    f.subjectKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions(f))),
  );
  // node:crypto signs ECDSA as the DER SEQUENCE { r, s } by default: what X.509 carries.
  const signature = sign('sha256', tbs, f.issuerKey.privateKey);
  return sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
}

/** PEM (RFC 7468): base64 in lines of 64 between the BEGIN and END lines. */
export function certificatePem(der: Uint8Array): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

// One attribute per RDN, common name first: the order the certificates had before, so reports
// show the same "CN=localhost, O=ces-harness". Issuer and subject go through this one function,
// so a leaf's issuer is byte for byte its CA's subject, which is how chains are matched.
function name(dn: DistinguishedName): Buffer {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8String(value)));
  return sequence(
    rdn(OID.commonName, dn.commonName),
    ...(dn.organization === undefined ? [] : [rdn(OID.organization, dn.organization)]),
  );
}

function extensions(f: CertificateFields): Buffer[] {
  const ids = [extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(f.subjectKey)))];
  // keyIdentifier is [0] IMPLICIT OCTET STRING inside the AuthorityKeyIdentifier SEQUENCE.
  const authority = extension(
    OID.authorityKeyIdentifier,
    false,
    sequence(implicit(0, keyIdentifier(f.issuerKey.publicKey))),
  );
  if (f.profile.ca) {
    return [
      // cA TRUE with a pathLenConstraint: by default 0, it signs leaves only, never another CA.
      extension(OID.basicConstraints, true, sequence(boolean(true), integer(f.profile.pathLength ?? 0))),
      extension(OID.keyUsage, true, namedBits([KEY_CERT_SIGN, CRL_SIGN])),
      ...ids,
      // A root signs itself and names no authority; an intermediate names the root that signed it.
      ...(f.issuerKey.publicKey.equals(f.subjectKey) ? [] : [authority]),
    ];
  }
  return [
    // cA FALSE is the default, and DER leaves defaults out: an empty SEQUENCE.
    extension(OID.basicConstraints, true, sequence()),
    extension(OID.keyUsage, true, namedBits([DIGITAL_SIGNATURE])),
    extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
    extension(OID.subjectAltName, false, sequence(...f.profile.altNames.map(generalName))),
    ...ids,
    authority,
  ];
}

/** Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING (the DER of the value) } */
function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

/** An uncompressed P-256 point: 04‖x‖y, the last bytes of its SubjectPublicKeyInfo's BIT STRING. */
const P256_POINT_BYTES = 65;

/**
 * RFC 5280 §4.2.1.2 method 1: SHA-1 of the public key's bits (for P-256, the point 04‖x‖y), read
 * from its DER rather than a JWK export (the one export seen deadlocking, mint.ts `newKeyPair`).
 */
function keyIdentifier(key: KeyObject): Buffer {
  if (key.asymmetricKeyType !== 'ec') throw new Error('certificate keys must be elliptic-curve keys');
  const point = key.export({ type: 'spki', format: 'der' }).subarray(-P256_POINT_BYTES);
  if (point[0] !== 0x04) throw new Error('certificate keys must be uncompressed P-256 points');
  return createHash('sha1').update(point).digest();
}

// GeneralName: dNSName is [2] IMPLICIT IA5String (ASCII, so an IDN goes in as punycode), iPAddress
// is [7] IMPLICIT OCTET STRING of the 4 or 16 address bytes.
function generalName(n: AltName): Buffer {
  if (n.type === 'ip') return implicit(7, ipBytes(n.value));
  const ascii = domainToASCII(n.value);
  if (ascii === '') throw new RangeError(`not a DNS name for a certificate: ${n.value}`);
  return implicit(2, Buffer.from(ascii, 'ascii'));
}

export function ipBytes(address: string): Buffer {
  const family = isIP(address);
  if (family === 4) return Buffer.from(address.split('.').map(Number));
  if (family !== 6 || address.includes('%')) throw new RangeError(`not an IP address for a certificate: ${address}`);
  // IPv6: an IPv4 tail (::ffff:10.1.2.3) becomes two groups, then "::" stands for enough zero groups to make eight.
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const text = v4Tail ? address.slice(0, v4Tail.index) + hexGroups(v4Tail.slice(1).map(Number)) : address;
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - before.length - after.length).fill('0');
  const out = Buffer.alloc(16);
  [...before, ...zeros, ...after].forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), 2 * i));
  return out;
}

const hexGroups = ([a = 0, b = 0, c = 0, d = 0]: number[]) =>
  `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
