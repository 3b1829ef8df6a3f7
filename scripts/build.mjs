// Bundles the CLI for `bin/ces-harness.js`, and each k6 scenario for `ces-harness load`. Runs from
// `npm ci` (prepare) and before tests, so the bin works from a clean clone without a TypeScript
// runtime.
//
//   node scripts/build.mjs                 both
//   node scripts/build.mjs scenarios       only the k6 bundles (tests use this with --outdir DIR)
//   node scripts/build.mjs cli
//   node scripts/build.mjs --clean         both, into an emptied dist/ (`npm pack`: no chunk of an older build in the tarball)
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values: flags, positionals } = parseArgs({
  options: { outdir: { type: 'string' }, clean: { type: 'boolean' } },
  allowPositionals: true,
});
const targets = positionals.length > 0 ? positionals : ['cli', 'scenarios'];
// esbuild names split chunks by content hash and never removes the old ones.
if (flags.clean) rmSync('dist', { recursive: true, force: true });

// Only the files whose bytes changed are written, each whole by a rename: a build of an unchanged
// tree rewrites nothing under a CLI or k6 run reading dist/, and a reader never sees a
// half-written bundle. An unchanged file still gets the build's time, so a check of dist/ against
// the sources' times (bench/ratelimit-stage.ts staleBuild) sees it built after a source change
// that left its bytes alone (a comment).
async function buildChanged(options) {
  const result = await build({ ...options, write: false });
  const now = new Date();
  for (const file of result.outputFiles) {
    let same = false;
    try {
      same = readFileSync(file.path).equals(Buffer.from(file.contents));
    } catch {
      // Not there yet: written below.
    }
    if (same) {
      utimesSync(file.path, now, now);
      continue;
    }
    mkdirSync(dirname(file.path), { recursive: true });
    const part = `${file.path}.${process.pid}.part`;
    writeFileSync(part, file.contents);
    renameSync(part, file.path);
  }
  return result;
}

function buildCli() {
  return buildChanged({
    // The built-in emulator runs in a worker thread, which loads a file of its own: the emulator's
    // modules land in a chunk both entries share.
    entryPoints: { cli: 'src/cli/main.ts', 'emulator-worker': 'src/emulator/worker/entry.ts' },
    outdir: 'dist',
    bundle: true,
    // Node built-ins and npm dependencies stay imports: they are installed beside the bundle, and
    // bundling undici or yaml would only make stack traces and licences harder to read.
    platform: 'node',
    packages: 'external',
    format: 'esm',
    // The emulator is imported lazily; splitting keeps it out of the start-up path of runs against
    // a real target.
    splitting: true,
    target: 'node20',
    // Source maps so a bug report's stack points at src/, not at the bundle.
    sourcemap: true,
    logLevel: 'warning',
  });
}

// One bundle per scenario: scenarios/<name>.ts → dist/scenarios/<name>.js. scenarios/lib/ holds
// the shared helpers and is inlined into each bundle, never bundled on its own; so are the modules
// the Node side shares with k6 (src/k6/contract.ts, src/spec/), which import neither Node nor k6.
function buildScenarios(outdir = join('dist', 'scenarios')) {
  const dir = 'scenarios';
  const entryPoints = Object.fromEntries(
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
      .map((e) => [basename(e.name, '.ts'), join(dir, e.name)]),
  );
  return buildChanged({
    // The object form maps each output name to its source, so the bundle's name is the scenario's
    // name (what `--scenario NAME` and the report use), one to one.
    entryPoints,
    outdir,
    // k6 resolves imports itself and knows neither TypeScript nor node_modules; one self-contained
    // file per scenario is also what k6-operator and `k6 archive` expect.
    bundle: true,
    // k6 runs ES modules natively; keeping `export const options` / `export default` as ESM means
    // no CommonJS wrapper for k6 to transpile at start-up, and the exports k6 looks for stay visible.
    format: 'esm',
    // Never split: shared chunks would turn each scenario into several files, and a scenario must
    // be one file (k6-operator ConfigMaps, `k6 archive`, copying a bundle by hand).
    splitting: false,
    // k6's JavaScript runtime (Sobek) is neither Node nor a browser: 'neutral' adds no Node shims,
    // no `process.env.NODE_ENV` defines and no browser globals.
    platform: 'neutral',
    // Sobek implements ES2020 syntax (optional chaining, ??, classes, async/await). Output at that
    // level needs no down-levelling helpers, and anything newer that slips into the sources
    // (e.g. `??=`) is rewritten for it.
    target: 'es2020',
    // The k6 modules exist only inside the k6 binary; remote jslib imports are fetched by k6 itself.
    external: ['k6', 'k6/*', 'https://*'],
    // Inline maps: k6 v2 reads `//# sourceMappingURL=data:…`, so errors point at scenarios/*.ts, and
    // an inline map survives the bundle being copied, archived or sent to a cluster without a .map.
    sourcemap: 'inline',
    // Readable bundles: without a map k6 reports bundle positions, and the scenarios are small
    // enough that minifying saves nothing that matters.
    minify: false,
    // Only what a scenario imports from scenarios/lib ends up in its bundle.
    treeShaking: true,
    logLevel: 'warning',
  });
}

// Each target builds even when another fails (a broken CLI must not hide the scenario bundles'
// own errors), and the script still fails if any did.
const builds = { cli: () => buildCli(), scenarios: () => buildScenarios(flags.outdir) };
const results = await Promise.allSettled(
  targets.map((t) => (t in builds ? builds[t]() : Promise.reject(new Error(`unknown build target "${t}"`)))),
);
const failed = results.filter((r) => r.status === 'rejected');
for (const f of failed)
  if (!String(f.reason?.message).startsWith('Build failed')) console.error(f.reason?.message ?? f.reason);
if (failed.length > 0) process.exitCode = 1;
