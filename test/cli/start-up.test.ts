// What the built CLI loads before it knows the command: `--help`, a usage error and `serve` must
// not pay for undici, zod, yaml, the checks or k6 (each command imports its own modules lazily);
// and `check` without a config file pays for no config parser (yaml, zod).
// Read from the bundle itself, since the bundle, not the sources, is what node loads at start-up.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { runCli } from '../helpers/cli.js';

const dist = join(findProjectRoot(), 'dist');

/** Static `import … from "…"` (and `import "…"`) specifiers of one bundle file; not `import("…")`. */
const staticImports = (text: string): string[] =>
  [...text.matchAll(/^\s*(?:import|export)\b[^;(]*?['"]([^'"]+)['"]/gm)].map((m) => m[1]!);

/** Every module loaded when `file` is, following the bundle's own chunks; packages and node: by name. */
function loadedAtStart(file: string, seen = new Set<string>()): Set<string> {
  for (const spec of staticImports(readFileSync(join(dist, file), 'utf8'))) {
    if (seen.has(spec)) continue;
    seen.add(spec);
    if (spec.startsWith('./')) loadedAtStart(spec.slice(2), seen);
  }
  return seen;
}

/** The chunk cli.js imports lazily for a command module (`./commands/check.js` → check-HASH.js). */
function lazyChunk(name: string): string {
  const found = new RegExp(`import\\(\\s*['"]\\./(${name}-[A-Z0-9]+\\.js)['"]`).exec(
    readFileSync(join(dist, 'cli.js'), 'utf8'),
  );
  if (!found) throw new Error(`cli.js imports no ${name} chunk; rebuild with node scripts/build.mjs`);
  return found[1]!;
}

/** The source modules the bundle files hold (esbuild names each in a `// path` line). */
const modulesIn = (files: Iterable<string>): string[] =>
  [...files]
    .filter((f) => !f.startsWith('node:') && (f.startsWith('./') || f.endsWith('.js')))
    .flatMap((f) =>
      [...readFileSync(join(dist, f.replace(/^\.\//, '')), 'utf8').matchAll(/^\/\/ ((?:src|checks)\/\S+\.ts)$/gm)].map(
        (m) => m[1]!,
      ),
    );

describe('CLI start-up', () => {
  it('loads no HTTP client, config parser, check or k6 module before a command asks for it', () => {
    const loaded = [...loadedAtStart('cli.js')];
    const packages = loaded.filter((s) => !s.startsWith('./') && !s.startsWith('node:'));
    expect(packages).toEqual([]);
    // The commands' own chunks are reached only through import(); their names carry the module's.
    expect(
      loaded.filter((s) => /\/(check|target-job|load|load-stage|ratelimit|stage|serve|k8s)-[A-Z0-9]+\.js$/.test(s)),
    ).toEqual([]);
  });

  // By the modules the chunks hold, not their names: esbuild puts modules shared by several
  // commands into chunk-HASH.js files.
  it('loads no check and no emulator module before a command asks for it', () => {
    const modules = modulesIn(['cli.js', ...loadedAtStart('cli.js')]);
    expect(modules.filter((m) => /^(checks|src\/runner|src\/tls|src\/emulator|src\/http\/redact)\//.test(m))).toEqual(
      [],
    );
  });

  // The spare emulator thread (emulator-spare.ts) starts once the worker host has loaded: the
  // emulator's catalogue of faults and profiles, which the thread loads for itself, must not
  // hold it up by loading here first.
  it('starts the spare emulator thread before loading the emulator catalogue in the CLI thread', () => {
    const host = /import\(\s*['"]\.\/(host-[A-Z0-9]+\.js)['"]/.exec(readFileSync(join(dist, 'cli.js'), 'utf8'));
    expect(host).not.toBeNull();
    const modules = modulesIn([host![1]!, ...loadedAtStart(host![1]!)]);
    expect(modules).toContain('src/emulator/worker/host.ts');
    expect(modules.filter((m) => /^src\/emulator\/(faults|profiles|options|token-store)/.test(m))).toEqual([]);
  });

  // Most emulators offer HTTP/1.1 only; the thread's start is on the way to the CLI's first request.
  it('starts the emulator thread without node:http2, which only an HTTP/2 listener loads', () => {
    expect(loadedAtStart('emulator-worker.js').has('node:http2')).toBe(false);
  });

  it('check loads undici, and the config parser only when a config file is read', () => {
    const loaded = new Set([...loadedAtStart(lazyChunk('target-job')), ...loadedAtStart(lazyChunk('check'))]);
    // undici by its index, or by its own files (src/http/undici.ts requires only the parts the harness uses).
    const chunks = [lazyChunk('target-job'), lazyChunk('check'), ...[...loaded].filter((s) => s.startsWith('./'))];
    const text = chunks.map((c) => readFileSync(join(dist, c.replace(/^\.\//, '')), 'utf8')).join('\n');
    expect(loaded.has('undici') || /['"]undici\/lib\/dispatcher\/agent\.js['"]/.test(text)).toBe(true);
    expect(loaded.has('yaml')).toBe(false);
    expect(loaded.has('zod')).toBe(false);
  });

  it('check loads the report renderers and the history comparison after its first request, not before', () => {
    const chunks = [lazyChunk('target-job'), lazyChunk('check')];
    const loaded = [...chunks, ...[...chunks].flatMap((c) => [...loadedAtStart(c)])].filter((s) => s.startsWith('./'));
    const modules = new Set(
      loaded.flatMap((c) =>
        [...readFileSync(join(dist, c.replace(/^\.\//, '')), 'utf8').matchAll(/^\/\/ (src\/\S+\.ts)$/gm)].map(
          (m) => m[1]!,
        ),
      ),
    );
    // The bundle names each module it holds: the folder checks (report-place.ts) are there, the writing is not.
    expect(modules.has('src/cli/report-place.ts')).toBe(true);
    for (const late of ['src/report/index.ts', 'src/report/html.ts', 'src/cli/report-folder.ts', 'src/history/step.ts'])
      expect({ late, loaded: modules.has(late) }).toEqual({ late, loaded: false });
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
