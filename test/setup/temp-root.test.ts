// The run's temp folder (temp-root.ts): every worker's TMPDIR, and the product's own folder names
// known to its teardown, which fails a run that leaves one of them.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PRODUCT_TEMP_PREFIXES, productLeftovers } from './temp-root.js';

describe('the test run temp folder', () => {
  it('is the temp folder of this worker and of what it starts', () => {
    const root = inject('tempRoot');
    expect(root).toMatch(/ces-test-run-/);
    expect(tmpdir()).toBe(root);
    expect(process.env.TMPDIR).toBe(root);
  });

  it("knows every temp folder prefix the product's code makes", () => {
    const made = new Set<string>();
    const files = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    for (const file of files) {
      for (const m of readFileSync(join('src', file), 'utf8').matchAll(
        /mkdtemp(?:Sync)?\(\s*join\(\s*tmpdir\(\),\s*'([^']+)'/g,
      ))
        made.add(m[1]!);
    }
    expect(made.size).toBeGreaterThan(0);
    expect([...made].sort()).toEqual([...PRODUCT_TEMP_PREFIXES].sort());
  });

  it("finds the product's folders left in a root, not the tests' own", () => {
    const root = mkdtempSync(join(tmpdir(), 'ces-temp-root-'));
    try {
      for (const name of ['ces-emulator-abc123', 'ces-k6-ca-x', 'ces-hostile-abc', 'ces-k6-script-abc'])
        mkdirSync(join(root, name));
      expect(productLeftovers(root).sort()).toEqual(['ces-emulator-abc123', 'ces-k6-ca-x']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
