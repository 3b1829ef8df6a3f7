#!/usr/bin/env node
// Makes sure a k6 of the pinned version is available, building it from source with Go when not.
// Runs from `npm ci` (the `prepare` script), so it never fails the install: whatever goes wrong is
// one line on stderr naming the problem and the fix, and exit status 0. The harness itself then
// builds k6 at its first `run`/`load` (src/k6/locate.ts), or exits 2 (K6_NOT_FOUND) saying why not.
//
// Why build from source: k6 v2 is a Go module, and the Go module proxy is the one channel that is
// reachable from locked-down CI runners that already allow Go. tools/k6/go.mod pins the version and
// go.sum pins every dependency's hash, so the build is reproducible and cached by Go afterwards.
// The build itself is scripts/k6-build.mjs, shared with the CLI.
//
// Env: CES_SKIP_K6_PROVISION=1 skips everything (a CI job that runs only `check` needs no k6);
// K6_BINARY names a k6 to use instead; CES_K6_PROGRESS_EVERY_S sets how often the build reports
// progress (default 10).

import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildK6, EXE, k6Pin, k6Suits, k6Version, onPath } from './k6-build.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN_DIR = join(ROOT, '.tools', 'k6', 'bin');
const LOG_FILE = join(ROOT, '.tools', 'k6', 'build.log');

const say = (line) => process.stdout.write(`ces-harness: ${line}\n`);
const complain = (line) => process.stderr.write(`ces-harness: ${line}\n`);

// tools/k6/go.mod is the one source of truth for the version (src/k6/version.ts reads it too).
const pin = k6Pin(ROOT);
if (pin === undefined) {
  complain('tools/k6/go.mod does not pin go.k6.io/k6/v2; not provisioning k6');
  process.exit(0);
}
const { pinned: PINNED, pinnedMinor: PINNED_MINOR, goMin: GO_MIN } = pin;
const FIX_TAIL = `run \`node scripts/provision-k6.mjs\`, or set K6_BINARY to a k6 v${PINNED_MINOR}.x binary`;

const shown = (path) => (path.startsWith(ROOT) ? relative(ROOT, path) : path);

async function main() {
  if (process.env.CES_SKIP_K6_PROVISION === '1') {
    say('CES_SKIP_K6_PROVISION=1: not provisioning k6');
    return;
  }
  // `npm pack` runs prepare too: a tarball holds no k6 (its user's first run builds one), so packing builds none.
  if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') return;

  // Same order as src/k6/locate.ts, so what this script accepts is what the harness will run.
  const candidates = [
    ['K6_BINARY', process.env.K6_BINARY?.trim() ? resolve(process.env.K6_BINARY.trim()) : undefined],
    ['the project build', join(BIN_DIR, EXE)],
    ['PATH', onPath(EXE)],
  ];
  for (const [source, path] of candidates) {
    if (path === undefined) continue;
    const version = await k6Version(path);
    if (k6Suits(version, PINNED)) {
      say(`using k6 v${version} at ${shown(path)} (${source}); nothing to build`);
      return;
    }
    if (source === 'K6_BINARY') {
      // The harness refuses an unusable K6_BINARY; say so now rather than at the first load run.
      complain(
        `K6_BINARY=${path} is ${version ? `k6 v${version}` : 'not a working k6'}, not v${PINNED_MINOR}.x; the harness will refuse it until it is fixed or unset`,
      );
    }
  }

  const built = await buildK6({ root: ROOT, binDir: BIN_DIR, logFile: LOG_FILE, fix: FIX_TAIL, say, show: shown });
  if (!built.ok) return complain(built.line);
  say(`built k6 v${built.version} at ${shown(built.path)} in ${built.seconds} s (${built.counts})`);
}

try {
  await main();
} catch (err) {
  // Never fail `npm ci` over k6: the rest of the harness (checks, serve, reports) works without it.
  complain(
    `could not provision k6 v${PINNED}: ${err instanceof Error ? err.message : String(err)}; install Go >= ${GO_MIN} (https://go.dev/dl/) and ${FIX_TAIL}`,
  );
}
process.exitCode = 0;
