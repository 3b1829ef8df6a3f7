// One temp folder per test run, removed when the run ends: every worker, and every CLI, k6 or server
// a test starts, inherits TMPDIR, so their mkdtemp folders land under it. Tests make hundreds of
// folders (reports, configs, certificates; 388 in one fast-tier run on 6 Dec) and a test that ends
// early leaves its own behind; before this, /tmp held 18,000 of them after a few days of CI runs.
//
// The product's own folders (the emulator's certificates and key, k6's trust bundle and dashboard
// export) must be gone before the run ends whatever a test did: a test that leaves one has left an
// emulator or a k6 run open. The teardown names any it finds, and fails the run (exit code 1).

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** The prefixes of the temp folders the product makes and removes itself (src/: grep mkdtemp). */
export const PRODUCT_TEMP_PREFIXES = ['ces-emulator-', 'ces-k6-ca-', 'ces-k6-dashboard-'];

/** The product's folders still in `root`: what a run must not leave behind. */
export const productLeftovers = (root: string): string[] =>
  readdirSync(root).filter((name) => PRODUCT_TEMP_PREFIXES.some((prefix) => name.startsWith(prefix)));

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's temp folder, TMPDIR for every worker (test/setup/temp-root.ts). */
    tempRoot: string;
  }
}

/** Set while a run's root exists: vitest runs a global setup once for the root config and again for each project that extends it. */
const OWNED = 'CES_TEST_RUN_TEMP';

export default function setup(project: TestProject): () => void {
  const made = process.env[OWNED];
  if (made !== undefined) {
    project.provide('tempRoot', made);
    return () => undefined;
  }
  const outer = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'ces-test-run-'));
  // Set before any worker starts, so they and what they start inherit it (os.tmpdir() reads it).
  process.env.TMPDIR = root;
  process.env[OWNED] = root;
  project.provide('tempRoot', root);
  return () => {
    delete process.env[OWNED];
    const left = productLeftovers(root);
    rmSync(root, { recursive: true, force: true });
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    if (left.length === 0) return;
    // A teardown's throw is printed and the run still exits 0: the exit code is set instead.
    process.stderr.write(
      `\ntemp-root: the run left ${left.length} of the product's temp folders (${left.slice(0, 5).join(', ')}${left.length > 5 ? ', …' : ''}): a test did not close an emulator or k6 run it started\n`,
    );
    process.exitCode = 1;
  };
}
