// Runs a TypeScript entry point (bench/, one-off tools) on Node 20, which cannot strip types
// itself: esbuild bundles it to a temporary file next to node_modules, then Node imports it.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: node scripts/run-ts.mjs FILE.ts [args…]\n');
  process.exit(2);
}
// Inside the project so that bare imports resolve to its node_modules.
const dir = mkdtempSync(join(resolve('.'), '.run-ts-'));
const out = join(dir, 'entry.mjs');
try {
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  process.argv = [process.argv[0], entry, ...args];
  await import(pathToFileURL(out).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
