// The certificate of the calibration servers: one self-signed ECDSA P-256 certificate per process,
// DER-encoded by hand with node:crypto. Calibration only needs *a* certificate the server can
// present (the probe does not verify it), and building one here takes about a millisecond, where
// importing @peculiar/x509 (test-cert.ts) costs a few hundred: more than the whole TLS matrix is
// allowed to take. ECDSA works from TLS 1.0 through 1.3, so one certificate serves every case.

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

export interface KeyAndCert {
  keyPem: string;
  certPem: string;
}

// Minimal DER: definite lengths, and only the universal types a v1 certificate needs.
function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, content]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

// UTCTime (YYMMDDHHMMSSZ) is what RFC 5280 wants for dates before 2050.
function utcTime(d: Date): Buffer {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
  return tlv(0x17, Buffer.from(s, 'ascii'));
}

function name(commonName: string): Buffer {
  const cn = seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')));
  return seq(tlv(0x31, cn));
}

const ECDSA_WITH_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function build(): KeyAndCert {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = randomBytes(16);
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40; // positive, and minimal DER (no leading zero byte)
  const now = Date.now();
  const subject = name('ces-harness calibration');
  const tbs = seq(
    tlv(0x02, serial),
    ECDSA_WITH_SHA256,
    subject,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 7 * 86_400_000))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  // node:crypto signs ECDSA in DER (r, s) form by default, which is what X.509 carries.
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, ECDSA_WITH_SHA256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = cert.toString('base64').replace(/.{64}/g, '$&\n').trimEnd();
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
  };
}

let cached: KeyAndCert | undefined;
export const calibrationCert = (): KeyAndCert => (cached ??= build());
