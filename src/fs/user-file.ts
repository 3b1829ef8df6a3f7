// Reading a file the user named (config, CA, ledger…): only a regular file, and only up to a size
// cap. `--ca /dev/zero` would otherwise read until memory runs out, and a FIFO would block forever.

import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { HarnessError } from '../errors.js';

export const MiB = 1024 * 1024;

/** Far above any real file of each kind, far below what would hurt. */
export const FILE_LIMITS = {
  config: MiB,
  /** A system bundle of every public root is about 220 KB. */
  ca: 4 * MiB,
  ledger: 16 * MiB,
} as const;

export interface UserFile {
  /** Names the file's source in the message: `--ca`, `environments.sandbox.ca_file`, `ledger`. */
  what: string;
  maxBytes: number;
  /** What to do instead, ending the one line: "give the CA certificate in PEM form". */
  fix: string;
}

function notAFile(st: Stats): string {
  if (st.isDirectory()) return 'is a folder, not a file';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'is a device, not a file';
  if (st.isFIFO()) return 'is a pipe, not a file';
  return 'is not a regular file';
}

/**
 * The file's text. Refusals (not a regular file, over the cap) are HarnessErrors of one line; an
 * fs error such as ENOENT is thrown as it is, for the caller to phrase in its own terms.
 */
export function readUserFile(path: string, file: UserFile): string {
  const refuse = (why: string) => new HarnessError('FILE_UNUSABLE', `${file.what}: ${path} ${why}; ${file.fix}`);
  const notRegular = (st: Stats) => refuse(notAFile(st));
  // stat before open: opening a FIFO for reading blocks until someone writes to it.
  const before = statSync(path);
  if (!before.isFile()) throw notRegular(before);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(st);
    const tooLarge = () => refuse(`is larger than ${limitText(file.maxBytes)}, too large to be the right file`);
    if (st.size > file.maxBytes) throw tooLarge();
    // The size can lie (a file still growing, /proc reports 0): read to EOF, but never past the cap.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > file.maxBytes) throw tooLarge();
      chunks.push(chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

const limitText = (bytes: number) => (bytes >= MiB && bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);
