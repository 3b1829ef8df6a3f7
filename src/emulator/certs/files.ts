// Where the certificates live on disk: k6 and curl need paths, not PEM text. A folder the
// emulator made itself is removed on close; a folder the user named is left with the files in it.

import { rmSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from '../../exit-cleanup.js';
import type { CertificateSet } from './generate.js';

export interface CertificateFiles {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  /** Removes the folder when the emulator created it. */
  dispose(): Promise<void>;
}

export async function writeCertificates(set: CertificateSet, tlsDir?: string): Promise<CertificateFiles> {
  const owned = tlsDir === undefined;
  const dir = owned ? await mkdtemp(join(tmpdir(), 'ces-emulator-')) : tlsDir;
  // The folder holds a private key: gone even when the process ends at once (a second Ctrl-C).
  const forget = owned ? atExit(() => rmSync(dir, { recursive: true, force: true })) : () => undefined;
  if (!owned) await mkdir(dir, { recursive: true });
  const caFile = join(dir, 'ca.pem');
  const certFile = join(dir, 'server.pem');
  const keyFile = join(dir, 'server-key.pem');
  await writeFile(caFile, set.caPem, { mode: 0o644 });
  await writeFile(certFile, set.certPem, { mode: 0o644 });
  await writeFile(keyFile, set.keyPem, { mode: 0o600 });
  // writeFile's mode only applies to a new file; an existing key file from an earlier run keeps
  // whatever it had, so set it explicitly.
  await chmod(keyFile, 0o600);
  return {
    dir,
    caFile,
    certFile,
    keyFile,
    dispose: async () => {
      if (owned) await rm(dir, { recursive: true, force: true });
      forget();
    },
  };
}
