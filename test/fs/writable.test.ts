// Two runs started at once in one folder both find reports/ missing and both create it: the one
// that loses the race must carry on (and must not later remove a folder it did not make).

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

const race = vi.hoisted(() => ({ otherRunFirst: false }));
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  return {
    ...real,
    // The other run's mkdir lands between this run's stat and its own mkdir.
    mkdirSync: (...args: Parameters<typeof real.mkdirSync>) => {
      if (race.otherRunFirst) real.mkdirSync(args[0]);
      return real.mkdirSync(...args);
    },
  };
});
// The fast tier shares a worker between files (isolate: false): writable.js may already be loaded
// with the real fs, so it is loaded afresh under the mock, and the mock goes with this file.
vi.resetModules();
const { ensureWritableDir } = await import('../../src/fs/writable.js');
afterAll(() => {
  vi.doUnmock('node:fs');
  vi.resetModules();
});

const place = { what: 'report folder', fix: 'pass --report-dir DIR' };

describe('ensureWritableDir', () => {
  it('carries on when another run creates the folder at the same moment, and does not claim it', () => {
    const reports = join(mkdtempSync(join(tmpdir(), 'ces-writable-')), 'reports');
    race.otherRunFirst = true;
    try {
      expect(ensureWritableDir(reports, place)).toEqual([]);
    } finally {
      race.otherRunFirst = false;
    }
    expect(existsSync(reports)).toBe(true);
  });

  it('returns the folders it created itself', () => {
    const reports = join(mkdtempSync(join(tmpdir(), 'ces-writable-')), 'reports');
    expect(ensureWritableDir(reports, place)).toEqual([reports]);
  });
});
