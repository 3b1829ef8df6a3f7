// The certificates a spare emulator thread (host.ts) makes while it waits for its options: what
// createEmulator would mint for them at start (a CA and a server certificate, two P-256 keys and
// two signatures), made before the options are known, for the options that would make the same.

import { generateCertificates, type CertificateSet } from '../certs/generate.js';
import { transportOf } from '../profiles/index.js';
import type { WorkerEmulatorOptions } from './protocol.js';

/** The listen host createEmulator defaults to (options.ts), which the CLI's built-in emulator keeps. */
const DEFAULT_HOST = '127.0.0.1';

export interface CertificatesAhead {
  /** The set made ahead when these options would have createEmulator mint the same kind; else undefined. */
  for(options: WorkerEmulatorOptions): CertificateSet | undefined;
}

export function certificatesAhead(nowMs = Date.now()): CertificatesAhead {
  const set = generateCertificates(DEFAULT_HOST, nowMs, 'root');
  let used = false;
  return {
    for: (options) => {
      // Another host is in the certificate's names; a profile's intermediate CA is another chain.
      const same =
        (options.host ?? DEFAULT_HOST) === DEFAULT_HOST && transportOf(options.profiles ?? []).chain === 'root';
      if (!same || used) return undefined;
      used = true;
      return set;
    },
  };
}
