// The harness speaks to its user through the stage's io (progress, the report, the CLI's own
// lines), never straight to the console: a stray console.log in src/ writes into stdout, which
// `--format json` and a CI step parse. One debugging line of the probe's ramp went out so (30 Nov
// 2026, counter-ramp.ts, printed at every lattice point of a counter's ramp) and no test noticed.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/fs/project-root.js';

const root = findProjectRoot();
const CONSOLE_CALL = /\bconsole\.(log|info|warn|error|debug|trace|dir|table)\s*\(/;

/** Every line of a TypeScript file under `dir` that calls the console, as `path:line`. */
function consoleCalls(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (CONSOLE_CALL.test(line) ? [`${relative(root, join(dir, f))}:${i + 1}`] : [])),
    );
}

describe('src/ writes nothing to the console itself', () => {
  it('reads the source (the scan still finds its files)', () => {
    expect(readdirSync(join(root, 'src'), { recursive: true }).length).toBeGreaterThan(100);
  });
  it('has no console call', () => {
    expect(consoleCalls(join(root, 'src'))).toEqual([]);
  });
});
