#!/usr/bin/env node
// Makes sure a k6 of the pinned version is available, building it from source with Go when not.
// Runs from `npm ci` (the `prepare` script), so it never fails the install: whatever goes wrong is
// one line on stderr naming the problem and the fix, and exit status 0. The harness itself then
// exits 2 (K6_NOT_FOUND) when a command needs k6.
//
// Why build from source: k6 v2 is a Go module, and the Go module proxy is the one channel that is
// reachable from locked-down CI runners that already allow Go. tools/k6/go.mod pins the version and
// go.sum pins every dependency's hash, so the build is reproducible and cached by Go afterwards.
//
// Env: CES_SKIP_K6_PROVISION=1 skips everything (a CI job that runs only `check` needs no k6);
// K6_BINARY names a k6 to use instead; CES_K6_PROGRESS_EVERY_S sets how often the build reports
// progress (default 10).

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goProgress, isPackageLine } from './go-progress.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TOOLS_MODULE_DIR = join(ROOT, 'tools', 'k6');
const BIN_DIR = join(ROOT, '.tools', 'k6', 'bin');
const LOG_FILE = join(ROOT, '.tools', 'k6', 'build.log');
const EXE = process.platform === 'win32' ? 'k6.exe' : 'k6';
// A cold build is ~1 min of downloads and ~3.5 min of compiling on 2 cores; a stalled proxy must
// not hang `npm ci` forever.
const BUILD_TIMEOUT_MS = 30 * 60_000;

const say = (line) => process.stdout.write(`ces-harness: ${line}\n`);
const complain = (line) => process.stderr.write(`ces-harness: ${line}\n`);

// tools/k6/go.mod is the one source of truth for the version (src/k6/version.ts reads it too).
const goMod = readFileSync(join(TOOLS_MODULE_DIR, 'go.mod'), 'utf8');
const PINNED = /^\s*(?:require\s+)?go\.k6\.io\/k6\/v2\s+v(\d+\.\d+\.\d+)\s*(?:\/\/.*)?$/m.exec(goMod)?.[1];
const GO_MIN = /^go\s+(\d+\.\d+)/m.exec(goMod)?.[1] ?? '1.25';
if (PINNED === undefined) {
  complain('tools/k6/go.mod does not pin go.k6.io/k6/v2; not provisioning k6');
  process.exit(0);
}
const PINNED_MINOR = PINNED.split('.').slice(0, 2).join('.');
const FIX = `install Go >= ${GO_MIN} (https://go.dev/dl/) and run \`node scripts/provision-k6.mjs\`, or set K6_BINARY to a k6 v${PINNED_MINOR}.x binary`;
const BUILD_FIX = `fix that (Go >= ${GO_MIN}, a reachable Go module proxy: GOPROXY) and run \`node scripts/provision-k6.mjs\`, or set K6_BINARY to a k6 v${PINNED_MINOR}.x binary`;

/** stdout+stderr of a short command, or undefined when it cannot run or does not finish in time. */
function capture(file, args, env = process.env) {
  return new Promise((res) => {
    execFile(file, args, { env, timeout: 20_000, maxBuffer: 1 << 20, windowsHide: true }, (err, stdout, stderr) =>
      res(err ? undefined : `${stdout}\n${stderr}`),
    );
  });
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, name))) return resolve(dir, name);
  }
  return undefined;
}

/** The k6 version a binary reports, e.g. "2.2.0", or undefined. */
async function k6Version(path) {
  if (!executable(path)) return undefined;
  const out = await capture(path, ['version']);
  return out === undefined ? undefined : /\bk6 v(\d+\.\d+\.\d+)/.exec(out)?.[1];
}

const suitable = (version) => version !== undefined && version.split('.').slice(0, 2).join('.') === PINNED_MINOR;
const shown = (path) => (path.startsWith(ROOT) ? relative(ROOT, path) : path);

async function main() {
  if (process.env.CES_SKIP_K6_PROVISION === '1') {
    say('CES_SKIP_K6_PROVISION=1: not provisioning k6');
    return;
  }

  // Same order as src/k6/locate.ts, so what this script accepts is what the harness will run.
  const candidates = [
    ['K6_BINARY', process.env.K6_BINARY?.trim() ? resolve(process.env.K6_BINARY.trim()) : undefined],
    ['the project build', join(BIN_DIR, EXE)],
    ['PATH', onPath(EXE)],
  ];
  for (const [source, path] of candidates) {
    if (path === undefined) continue;
    const version = await k6Version(path);
    if (suitable(version)) {
      say(`using k6 v${version} at ${shown(path)} (${source}); nothing to build`);
      return;
    }
    if (source === 'K6_BINARY') {
      // The harness refuses an unusable K6_BINARY; say so now rather than at the first load run.
      complain(`K6_BINARY=${path} is ${version ? `k6 v${version}` : 'not a working k6'}, not v${PINNED_MINOR}.x; the harness will refuse it until it is fixed or unset`);
    }
  }

  const goVersionOut = onPath(process.platform === 'win32' ? 'go.exe' : 'go') && (await capture('go', ['version']));
  if (!goVersionOut) {
    complain(`k6 v${PINNED} is not installed and Go is not on PATH to build it; ${FIX}`);
    return;
  }
  const goVersion = /go(\d+)\.(\d+)/.exec(goVersionOut);
  const [wantMajor, wantMinor] = GO_MIN.split('.').map(Number);
  if (goVersion && (Number(goVersion[1]) < wantMajor || (Number(goVersion[1]) === wantMajor && Number(goVersion[2]) < wantMinor))) {
    complain(`k6 v${PINNED} is not installed and ${goVersionOut.trim().split('\n')[0]} is too old to build it (needs Go >= ${GO_MIN}); ${FIX}`);
    return;
  }

  say(`building k6 v${PINNED} from the Go module proxy into ${shown(BIN_DIR)} (a few minutes the first time)…`);
  mkdirSync(BIN_DIR, { recursive: true });
  const started = Date.now();
  const result = await goInstall();
  if (!result.ok) {
    complain(`could not build k6 v${PINNED}: ${result.error}; ${BUILD_FIX} (full log: ${shown(LOG_FILE)})`);
    return;
  }
  const built = await k6Version(join(BIN_DIR, EXE));
  if (!suitable(built)) {
    complain(`the k6 built into ${shown(BIN_DIR)} reports ${built ? `v${built}` : 'no version'}, not v${PINNED_MINOR}.x; ${FIX}`);
    return;
  }
  say(`built k6 v${built} at ${shown(join(BIN_DIR, EXE))} in ${Math.round((Date.now() - started) / 1000)} s (${result.counts})`);
}

/** `go install go.k6.io/k6/v2` inside the pinned tools module; the output goes to the log file. */
function goInstall() {
  const env = {
    ...process.env,
    // The binary lands in the project, not in ~/go/bin: the harness finds it there and nothing
    // else on the machine changes. GOPATH and the module/build caches stay default so a second
    // build (or another project) reuses them.
    GOBIN: BIN_DIR,
    // Never let `go` fetch a different toolchain behind the user's back; too old a Go is reported.
    GOTOOLCHAIN: 'local',
    // -mod=readonly: build exactly what go.mod/go.sum pin and never rewrite them. -buildvcs=false:
    // the tools module sits in this git checkout, whose state is irrelevant to a dependency build
    // (and stamping fails where git is absent or the repo has no commits yet).
    GOFLAGS: [process.env.GOFLAGS, '-mod=readonly', '-buildvcs=false'].filter(Boolean).join(' '),
  };
  // Installing by package path (no @version) resolves through the tools module's go.mod. The
  // `go install pkg@version` form needs the proxy's version list for the module, which some
  // proxies/mirrors do not serve for go.k6.io/k6/v2.
  return new Promise((res) => {
    const log = createWriteStream(LOG_FILE);
    // -v: go names each package as it compiles it, which goProgress counts (the log keeps them all).
    const progress = goProgress(say, progressEveryMs());
    const child = spawn('go', ['install', '-v', 'go.k6.io/k6/v2'], { cwd: TOOLS_MODULE_DIR, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let output = '';
    const keep = (chunk) => {
      log.write(chunk);
      progress.feed(chunk);
      if (output.length < 256 * 1024) output += chunk.toString();
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGTERM'), BUILD_TIMEOUT_MS);
    child.on('error', (err) => {
      progress.stop();
      clearTimeout(timer);
      log.end();
      res({ ok: false, error: err.message });
    });
    child.on('close', (code, signal) => {
      const counts = progress.stop();
      clearTimeout(timer);
      log.end();
      if (code === 0) return res({ ok: true, counts });
      if (signal) return res({ ok: false, error: `go install did not finish within ${BUILD_TIMEOUT_MS / 60_000} min (${signal})` });
      res({ ok: false, error: firstErrorLine(output) ?? `go install exited with status ${code}` });
    });
  });
}

/** CES_K6_PROGRESS_EVERY_S in ms; 10 s when unset or not a positive number. */
function progressEveryMs() {
  const seconds = Number(process.env.CES_K6_PROGRESS_EVERY_S);
  return Number.isFinite(seconds) && seconds > 0 ? Math.max(100, seconds * 1000) : 10_000;
}

/** The line of Go's output that names the problem, skipping its progress lines and package headers. */
function firstErrorLine(output) {
  const progress = /^(go: (downloading|finding|extracting|added|upgraded) |#)/;
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !progress.test(l) && !isPackageLine(l));
  // Go reports the failing module or command on a "go: …" line; compile errors have none.
  const line = lines.find((l) => l.startsWith('go: ')) ?? lines[0];
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

try {
  await main();
} catch (err) {
  // Never fail `npm ci` over k6: the rest of the harness (checks, serve, reports) works without it.
  complain(`could not provision k6 v${PINNED}: ${err instanceof Error ? err.message : String(err)}; ${FIX}`);
}
process.exitCode = 0;
