// Where the emulator worker's code is. The bundled CLI finds it beside itself in dist/
// (scripts/build.mjs builds entry.ts as dist/emulator-worker.js; the chunk holding this module sits
// in dist/ too). Run from the TypeScript sources (vitest calls the CLI in-process, the bench runs
// through scripts/run-ts.mjs) there is no bundle a Worker could load, Node 20 strips no types, and
// dist/ may be older than the sources: so esbuild bundles entry.ts in memory, once per process
// (~0.2 s), into a data: URL.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProjectRoot } from '../../fs/project-root.js';

let fromSources: Promise<URL> | undefined;

export function workerCode(): Promise<URL> {
  const beside = new URL('./emulator-worker.js', import.meta.url);
  if (beside.protocol === 'file:' && import.meta.url.endsWith('.js') && existsSync(fileURLToPath(beside)))
    return Promise.resolve(beside);
  return (fromSources ??= bundleSources(join(findProjectRoot(), 'src', 'emulator', 'worker', 'entry.ts')));
}

async function bundleSources(entry: string): Promise<URL> {
  // A dev dependency: only a checkout runs from its sources.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Only Node's built-ins stay imports: a data: module has no node_modules to resolve a package
    // from, so any the emulator ever imports is bundled in (today it imports none).
    external: ['node:*'],
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}
