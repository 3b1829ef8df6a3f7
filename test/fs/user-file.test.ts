// Files the user names are read only when they are regular files, and never past a size cap:
// `--ca /dev/zero` once read until the process ran out of memory, a FIFO blocked forever.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { readUserFile } from '../../src/fs/user-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ces-user-file-'));
const file = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const read = (path: string, maxBytes = 1024) =>
  readUserFile(path, { what: '--ca', maxBytes, fix: 'give the CA certificate in PEM form' });

describe('readUserFile', () => {
  it('reads a regular file up to the cap', () => {
    expect(read(file('ok.pem', 'x'.repeat(1024)))).toBe('x'.repeat(1024));
  });

  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const sparse = join(dir, 'huge.pem');
  writeFileSync(sparse, '');
  truncateSync(sparse, 64 * 1024 * 1024);

  const refusals: Array<{ name: string; path: string; maxBytes?: number; line: RegExp }> = [
    { name: 'a folder', path: dir, line: /^--ca: .* is a folder, not a file; give the CA certificate in PEM form$/ },
    { name: 'a device that never ends', path: '/dev/zero', line: /^--ca: \/dev\/zero is a device, not a file; / },
    { name: 'a FIFO (opening it would block)', path: fifo, line: /^--ca: .*fifo is a pipe, not a file; / },
    {
      name: 'a file over the cap',
      path: sparse,
      line: /^--ca: .*huge\.pem is larger than 1024 bytes, too large to be the right file; /,
    },
    // /proc files claim size 0: the cap must hold while reading, not only by the size stat reports.
    {
      name: 'a file whose size lies',
      path: '/proc/self/status',
      maxBytes: 16,
      line: /^--ca: \/proc\/self\/status is larger than 16 bytes/,
    },
  ];

  it.each(refusals)('refuses $name with one line, at once', ({ path, maxBytes, line }) => {
    const started = Date.now();
    let caught: unknown;
    try {
      read(path, maxBytes);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(HarnessError);
    expect((caught as HarnessError).code).toBe('FILE_UNUSABLE');
    expect((caught as HarnessError).exitCode).toBe(2);
    expect((caught as HarnessError).message).toMatch(line);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('leaves a missing file to the caller to phrase (the fs error as it is)', () => {
    expect(() => read(join(dir, 'missing.pem'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
