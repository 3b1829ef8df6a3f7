// The lock that lets runs share one history file: one holder at a time, a lock left by a dead run
// cleared once stale, and a wait that ends (with an error naming the lock) rather than hanging.

import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/fs/file-lock.js';

const file = () => join(mkdtempSync(join(tmpdir(), 'ces-lock-')), 'history.jsonl');
const TIMING = { waitMs: 300, staleMs: 5_000, pollMs: 10 };

describe('withFileLock', () => {
  it('holds FILE.lock while the work runs, and removes it after, also when the work throws', () => {
    const path = file();
    expect(withFileLock(path, () => existsSync(`${path}.lock`), TIMING)).toBe(true);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(() =>
      withFileLock(
        path,
        () => {
          throw new Error('boom');
        },
        TIMING,
      ),
    ).toThrow('boom');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('waits for a live holder no longer than waitMs, then says which lock is in the way', () => {
    const path = file();
    writeFileSync(`${path}.lock`, '1 now\n');
    const started = Date.now();
    expect(() => withFileLock(path, () => 'ran', TIMING)).toThrow(
      `another run held ${path}.lock for over 0.3 s; if no run is writing, remove the lock`,
    );
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(300);
    // Bounded: a poll past the deadline at most, whatever the machine's load.
    expect(waited).toBeLessThan(5_000);
    expect(existsSync(`${path}.lock`)).toBe(true);
  });

  it('clears a lock older than staleMs (its run died holding it) and goes on', () => {
    const path = file();
    writeFileSync(`${path}.lock`, '1 long ago\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    expect(withFileLock(path, () => 'ran', TIMING)).toBe('ran');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});
