// The ledger on a bad path: a folder or a huge file is the user's mistake (one line, exit 2), and a
// save that fails must not leave its temp file behind, since that file holds whole tokens.

import { mkdirSync, mkdtempSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Target } from '../../src/config/target.js';
import { HarnessError } from '../../src/errors.js';
import { Ledger } from '../../src/runner/ledger.js';

const target: Target = {
  environment: 'sandbox',
  baseUrl: 'https://sb.example.test',
  credentials: { clientId: 'client-a', clientSecret: 'secret-a-123' },
};
const fresh = () => mkdtempSync(join(tmpdir(), 'ces-ledger-errors-'));

describe('Ledger on a bad path', () => {
  it.each([
    {
      name: 'a folder',
      make: (p: string) => mkdirSync(p),
      message: /^ledger: .* is a folder, not a file; point --ledger/,
    },
    {
      name: 'a 32 MiB file',
      make: (p: string) => {
        writeFileSync(p, '');
        truncateSync(p, 32 * 1024 * 1024);
      },
      message: /^ledger: .* is larger than 16 MiB/,
    },
  ])('refuses $name with a usage error', ({ make, message }) => {
    const path = join(fresh(), 'ledger.json');
    make(path);
    expect(() => Ledger.open(path)).toThrow(HarnessError);
    expect(() => Ledger.open(path)).toThrow(message);
  });

  it('still starts empty from a missing or corrupt file (it is a cache)', () => {
    const dir = fresh();
    expect(Ledger.open(join(dir, 'missing.json')).entriesFor(target)).toEqual([]);
    writeFileSync(join(dir, 'corrupt.json'), '{not json');
    expect(Ledger.open(join(dir, 'corrupt.json')).entriesFor(target)).toEqual([]);
  });

  it('removes its temp file when the save fails', () => {
    const dir = fresh();
    const path = join(dir, 'ledger.json');
    const ledger = Ledger.open(path);
    ledger.record(target, 'whole-token-value-abcdef', Date.now() / 1000 + 86_400, Date.now());
    // The rename over a folder fails after the temp file was written.
    mkdirSync(path);
    expect(() => ledger.save(Date.now())).toThrow();
    expect(readdirSync(dir)).toEqual(['ledger.json']);
  });
});
