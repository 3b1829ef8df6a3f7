// The harness's own state files (the token ledger, the run history): mode 0600, written whole and
// atomically, and never through a symbolic link. A link at the file's path would make the harness
// read, chmod or overwrite whatever it points to (/etc/passwd, a teammate's file), and its advice
// (`chmod 600 FILE`) would change the target: so a link is refused, and every write opens its
// temporary file with O_EXCL | O_NOFOLLOW and renames it over the path (a rename replaces a link,
// never follows it).

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { HarnessError } from '../errors.js';

/** Throws the one line when `path` is a symbolic link; a missing path is fine (it will be created). */
export function refuseSymlink(path: string, what: string, fix: string): void {
  let isLink = false;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch {
    // missing (or unreadable, which the read that follows says in its own words)
  }
  if (isLink) {
    throw new HarnessError(
      'FILE_UNUSABLE',
      `${what}: ${path} is a symbolic link, which the harness does not follow (a write or a chmod would change the file it points to); ${fix}`,
    );
  }
}

// O_NOFOLLOW is missing on Windows; O_EXCL alone already refuses an existing link there.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** The folder of a private file, made (mode 0700) where missing. */
export const makePrivateFolder = (path: string): void =>
  void mkdirSync(dirname(path), { recursive: true, mode: 0o700 });

/** Writes `text` to `path` with mode 0600 in a 0700 folder: a new file beside it, renamed over it. */
export function writePrivateFile(path: string, text: string): void {
  makePrivateFolder(path);
  // Random, not the pid: concurrent writers in one process must not share a temporary file either.
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, CREATE_NEW, 0o600);
    try {
      // A umask can take bits away (0400 under umask 0277): the owner must be able to rewrite it.
      fchmodSync(fd, 0o600);
      const bytes = Buffer.from(text, 'utf8');
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
