// The trust store k6 gets when the user names an extra CA. k6 has no CA option for HTTP; Go reads
// SSL_CERT_FILE on Linux and then trusts only that file, so it must hold the system roots as well.

import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from '../exit-cleanup.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';

// Where Go looks for the system roots on Linux (crypto/x509 root_linux.go), first readable wins.
const SYSTEM_CA_FILES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

/** A PEM bundle of the system roots (or the user's SSL_CERT_FILE) plus `caFile`, in a temp folder. */
export async function trustBundle(
  caFile: string,
  base: NodeJS.ProcessEnv,
): Promise<{ file: string; dispose: () => Promise<void> }> {
  const readCa = (f: string) =>
    readUserFile(f, { what: 'CA bundle', maxBytes: FILE_LIMITS.ca, fix: 'give a PEM file' });
  const extra = readCa(caFile);
  let system = '';
  for (const f of base.SSL_CERT_FILE ? [base.SSL_CERT_FILE] : SYSTEM_CA_FILES) {
    try {
      system = readCa(f);
      break;
    } catch {
      // next candidate
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-ca-'));
  // Removed even when the process ends at once (a second Ctrl-C), not only by dispose().
  const forget = atExit(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'ca-bundle.pem');
  await writeFile(file, `${system.trimEnd()}\n${extra.trimEnd()}\n`, { mode: 0o600 });
  return {
    file,
    dispose: async () => {
      await rm(dir, { recursive: true, force: true });
      forget();
    },
  };
}
