// Building the pinned k6 from source with Go: the one procedure behind both `npm ci` in the clone
// (scripts/provision-k6.mjs, into .tools/k6/bin) and the first `run`/`load` of an installed package
// (src/k6/locate.ts, into the per-user cache). Plain JS so the install script needs no build; the
// CLI bundle imports it too, so both say the same lines and build the same way.
//
// Never a downloaded binary: `go install` of the module tools/k6/go.mod pins, through the Go module
// proxy, with go.sum pinning every dependency's hash.

import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { goProgress, isPackageLine } from './go-progress.mjs';

export const EXE = process.platform === 'win32' ? 'k6.exe' : 'k6';
// A cold build is ~1 min of downloads and ~3.5 min of compiling on 2 cores; a stalled proxy must
// not hang the install or the run forever.
export const BUILD_TIMEOUT_MS = 30 * 60_000;

/** The pin in `<root>/tools/k6/go.mod`: k6's version, its minor, and the oldest Go that builds it. */
export function k6Pin(root) {
  const goMod = readFileSync(join(root, 'tools', 'k6', 'go.mod'), 'utf8');
  const pinned = /^\s*(?:require\s+)?go\.k6\.io\/k6\/v2\s+v(\d+\.\d+\.\d+)\s*(?:\/\/.*)?$/m.exec(goMod)?.[1];
  const goMin = /^go\s+(\d+\.\d+)/m.exec(goMod)?.[1] ?? '1.25';
  return pinned === undefined ? undefined : { pinned, pinnedMinor: pinned.split('.').slice(0, 2).join('.'), goMin };
}

/** stdout+stderr of a short command, or undefined when it cannot run or does not finish in time. */
export function capture(file, args, env = process.env) {
  return new Promise((res) => {
    execFile(file, args, { env, timeout: 20_000, maxBuffer: 1 << 20, windowsHide: true }, (err, stdout, stderr) =>
      res(err ? undefined : `${stdout}\n${stderr}`),
    );
  });
}

export function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function onPath(name, env = process.env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, name))) return resolve(dir, name);
  }
  return undefined;
}

/**
 * Whether a k6 of `version` is one the harness runs: the pinned minor (docs: "a k6 v2.2"). The one
 * rule for `npm ci` (scripts/provision-k6.mjs) and the CLI (src/k6/locate.ts), so the install never
 * accepts a k6 the harness then refuses, nor builds one the harness would not have needed.
 */
export function k6Suits(version, pinned) {
  const minor = (v) => v.split('.').slice(0, 2).join('.');
  return version !== undefined && minor(version) === minor(pinned);
}

/** The k6 version a binary reports, e.g. "2.2.0", or undefined. */
export async function k6Version(path, env = process.env) {
  if (!executable(path)) return undefined;
  const out = await capture(path, ['version'], env);
  return out === undefined ? undefined : /\bk6 v(\d+\.\d+\.\d+)/.exec(out)?.[1];
}

/**
 * Builds the pinned k6 into `binDir`. Resolves { ok: true, path, version, seconds, counts } or
 * { ok: false, line }: one line naming the problem and ending in `fix` (what the user can do, which
 * differs between the clone and an installed package). `say` gets the progress lines; `show` writes
 * a path as the user should read it.
 */
export async function buildK6({ root, binDir, logFile, fix, say, env = process.env, show = (path) => path }) {
  const pin = k6Pin(root);
  if (pin === undefined) return { ok: false, line: 'tools/k6/go.mod does not pin go.k6.io/k6/v2; not provisioning k6' };
  const { pinned, pinnedMinor, goMin } = pin;
  const goVersionOut =
    onPath(process.platform === 'win32' ? 'go.exe' : 'go', env) && (await capture('go', ['version'], env));
  if (!goVersionOut)
    return {
      ok: false,
      line: `k6 v${pinned} is not installed and Go is not on PATH to build it; install Go >= ${goMin} (https://go.dev/dl/) and ${fix}`,
    };
  const goVersion = /go(\d+)\.(\d+)/.exec(goVersionOut);
  const [wantMajor, wantMinor] = goMin.split('.').map(Number);
  if (
    goVersion &&
    (Number(goVersion[1]) < wantMajor || (Number(goVersion[1]) === wantMajor && Number(goVersion[2]) < wantMinor))
  ) {
    return {
      ok: false,
      line: `k6 v${pinned} is not installed and ${goVersionOut.trim().split('\n')[0]} is too old to build it (needs Go >= ${goMin}); install Go >= ${goMin} (https://go.dev/dl/) and ${fix}`,
    };
  }

  say(`building k6 v${pinned} from the Go module proxy into ${show(binDir)} (a few minutes the first time)…`);
  mkdirSync(binDir, { recursive: true });
  const started = Date.now();
  const result = await goInstall({ root, binDir, logFile, say, env });
  if (!result.ok)
    return {
      ok: false,
      line: `could not build k6 v${pinned}: ${result.error}; fix that (Go >= ${goMin}, a reachable Go module proxy: GOPROXY) and ${fix} (full log: ${show(logFile)})`,
    };
  const path = join(binDir, EXE);
  const built = await k6Version(path, env);
  if (built === undefined || built.split('.').slice(0, 2).join('.') !== pinnedMinor) {
    return {
      ok: false,
      line: `the k6 built into ${show(binDir)} reports ${built ? `v${built}` : 'no version'}, not v${pinnedMinor}.x; install Go >= ${goMin} (https://go.dev/dl/) and ${fix}`,
    };
  }
  return { ok: true, path, version: built, seconds: Math.round((Date.now() - started) / 1000), counts: result.counts };
}

/** `go install go.k6.io/k6/v2` inside the pinned tools module; the output goes to the log file. */
function goInstall({ root, binDir, logFile, say, env }) {
  const goEnv = {
    ...env,
    // The binary lands where the harness looks for it, not in ~/go/bin: nothing else on the
    // machine changes. GOPATH and the module/build caches stay default so a second build (or
    // another project) reuses them.
    GOBIN: binDir,
    // Never let `go` fetch a different toolchain behind the user's back; too old a Go is reported.
    GOTOOLCHAIN: 'local',
    // -mod=readonly: build exactly what go.mod/go.sum pin and never rewrite them. -buildvcs=false:
    // the tools module may sit in a git checkout, whose state is irrelevant to a dependency build
    // (and stamping fails where git is absent or the repo has no commits yet).
    GOFLAGS: [env.GOFLAGS, '-mod=readonly', '-buildvcs=false'].filter(Boolean).join(' '),
  };
  // Installing by package path (no @version) resolves through the tools module's go.mod. The
  // `go install pkg@version` form needs the proxy's version list for the module, which some
  // proxies/mirrors do not serve for go.k6.io/k6/v2.
  return new Promise((res) => {
    const log = createWriteStream(logFile);
    // -v: go names each package as it compiles it, which goProgress counts (the log keeps them all).
    const progress = goProgress(say, progressEveryMs(env));
    const child = spawn('go', ['install', '-v', 'go.k6.io/k6/v2'], {
      cwd: join(root, 'tools', 'k6'),
      env: goEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
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
      if (signal)
        return res({
          ok: false,
          error: `go install did not finish within ${BUILD_TIMEOUT_MS / 60_000} min (${signal})`,
        });
      res({ ok: false, error: firstErrorLine(output) ?? `go install exited with status ${code}` });
    });
  });
}

/** CES_K6_PROGRESS_EVERY_S in ms; 10 s when unset or not a positive number. */
function progressEveryMs(env) {
  const seconds = Number(env.CES_K6_PROGRESS_EVERY_S);
  return Number.isFinite(seconds) && seconds > 0 ? Math.max(100, seconds * 1000) : 10_000;
}

/** The line of Go's output that names the problem, skipping its progress lines and package headers. */
function firstErrorLine(output) {
  const progress = /^(go: (downloading|finding|extracting|added|upgraded) |#)/;
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !progress.test(l) && !isPackageLine(l));
  // Go reports the failing module or command on a "go: …" line; compile errors have none.
  const line = lines.find((l) => l.startsWith('go: ')) ?? lines[0];
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
