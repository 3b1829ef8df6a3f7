// What the built CLI loads before it knows the command: `--help`, a usage error and `serve` must
// not pay for undici, zod, yaml, the checks or k6 (each command imports its own modules lazily).
// Read from the bundle itself, since the bundle, not the sources, is what node loads at start-up.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { runCli } from '../helpers/cli.js';

const dist = join(findProjectRoot(), 'dist');

/** Static `import … from "…"` (and `import "…"`) specifiers of one bundle file; not `import("…")`. */
const staticImports = (text: string): string[] => [...text.matchAll(/^\s*(?:import|export)\b[^;(]*?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

/** Every module loaded when `file` is, following the bundle's own chunks; packages and node: by name. */
function loadedAtStart(file: string, seen = new Set<string>()): Set<string> {
  for (const spec of staticImports(readFileSync(join(dist, file), 'utf8'))) {
    if (seen.has(spec)) continue;
    seen.add(spec);
    if (spec.startsWith('./')) loadedAtStart(spec.slice(2), seen);
  }
  return seen;
}

describe('CLI start-up', () => {
  it('loads no HTTP client, config parser, check or k6 module before a command asks for it', () => {
    const loaded = [...loadedAtStart('cli.js')];
    const packages = loaded.filter((s) => !s.startsWith('./') && !s.startsWith('node:'));
    expect(packages).toEqual([]);
    // The commands' own chunks are reached only through import(); their names carry the module's.
    expect(loaded.filter((s) => /\/(check|target-job|load|ratelimit|serve|k8s)-[A-Z0-9]+\.js$/.test(s))).toEqual([]);
  });

  it('still finds each command through its lazy import', async () => {
    const help = await runCli(['check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--only/);
    const unknown = await runCli(['check', '--only', 'no.such-check']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown check no\.such-check/);
  });
});
