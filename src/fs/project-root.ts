// Where the checkout is: the bundles (dist/scenarios), the k6 pin and the k6 binary are found from
// there, whichever folder the user runs the CLI in.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A file every checkout has at a fixed place: the k6 pin (src/k6/version.ts reads it). */
export const PROJECT_MARKER = join('tools', 'k6', 'go.mod');

/**
 * The project root: the nearest folder above this module that holds tools/k6/go.mod. Walking up
 * works both from src/fs/ (vitest, tsc) and from the bundled dist/cli.js.
 */
export function findProjectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ;) {
    try {
      readFileSync(join(dir, PROJECT_MARKER));
      return dir;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) throw new Error(`no ${PROJECT_MARKER} above ${from}; is the ces-harness checkout complete?`);
      dir = parent;
    }
  }
}
