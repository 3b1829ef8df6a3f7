// A CA file (--ca, ca_file) read strictly, before any request. node:tls and Go's crypto/x509 both
// skip a PEM block they cannot parse without a word, so a truncated or mangled CA used to surface
// only later as "certificate not trusted: pass --ca", the very flag the user had passed. Each way
// a file can be wrong gets its own line here instead.

import { X509Certificate } from 'node:crypto';

export interface CaCertificate {
  /** 1-based line of the BEGIN marker, for messages. */
  line: number;
  subject: string;
  validTo: string;
}

const BEGIN = /^-----BEGIN ([A-Z0-9 ]+)-----\s*$/;
const END = /^-----END ([A-Z0-9 ]+)-----\s*$/;
const BASE64_LINE = /^[A-Za-z0-9+/]*={0,2}$/;

/** What is wrong with the file, as the end of "--ca: FILE <problem>"; or the certificates in it. */
export function parseCaPem(text: string): { certificates: CaCertificate[] } | { problem: string } {
  const lines = text.split(/\r?\n/);
  const certificates: CaCertificate[] = [];
  const otherKinds = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const begin = BEGIN.exec(lines[i]!.trim());
    if (!begin) continue;
    const kind = begin[1]!;
    const start = i + 1;
    const body: string[] = [];
    let ended = false;
    for (i++; i < lines.length; i++) {
      const line = lines[i]!.trim();
      const end = END.exec(line);
      if (end) {
        if (end[1] !== kind)
          return {
            problem: `has a ${kind} block (line ${start}) closed by an END ${end[1]} marker (line ${i + 1}); copy the certificate again, whole`,
          };
        ended = true;
        break;
      }
      if (BEGIN.test(line)) break;
      body.push(line);
    }
    if (!ended)
      return {
        problem: `is cut short: the ${kind} block at line ${start} has no -----END ${kind}----- line; copy the whole certificate again`,
      };
    if (kind !== 'CERTIFICATE') {
      otherKinds.add(kind);
      continue;
    }
    const bad = body.findIndex((l) => !BASE64_LINE.test(l));
    const joined = body.join('');
    if (bad >= 0 || joined.length === 0 || joined.length % 4 !== 0) {
      const where = bad >= 0 ? ` (line ${start + 1 + bad})` : '';
      return {
        problem: `has a certificate block at line ${start} that is not valid base64${where}; copy the certificate again, without edits`,
      };
    }
    try {
      const cert = new X509Certificate(Buffer.from(joined, 'base64'));
      certificates.push({ line: start, subject: cert.subject.replace(/\n/g, ', '), validTo: cert.validTo });
    } catch {
      return {
        problem: `has a block at line ${start} that decodes to no X.509 certificate (damaged or truncated); copy the certificate again`,
      };
    }
  }
  if (certificates.length > 0) return { certificates };
  if (otherKinds.size > 0)
    return {
      problem: `holds no certificate, only ${[...otherKinds].join(', ')}; give the CA certificate (-----BEGIN CERTIFICATE-----), not a key or request`,
    };
  return {
    problem: 'holds no PEM certificate (no -----BEGIN CERTIFICATE----- line); give the CA certificate in PEM form',
  };
}
