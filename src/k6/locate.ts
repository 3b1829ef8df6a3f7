// Finding the k6 binary the scenarios run on. Order: K6_BINARY (the user's explicit choice), then
// the project's own build in .tools/k6/bin (what `npm ci` provisions in a clone), then the per-user
// cache, then PATH; when none is usable, the pinned k6 is built into the per-user cache with Go
// (scripts/k6-build.mjs, as `npm ci` builds it): an installed package has no `npm ci` to build one.
// An explicit K6_BINARY that is unusable is an error, not a reason to fall back silently: the user
// asked for it.

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildK6, BUILD_TIMEOUT_MS, EXE, k6Suits, onPath } from '../../scripts/k6-build.mjs';
import { HarnessError } from '../errors.js';
import { withFileLockAsync } from '../fs/file-lock.js';
import { PINNED_K6_VERSION, parseK6VersionOutput } from './version.js';

export interface LocatedK6 {
  /** Absolute path of the binary. */
  path: string;
  /** Semver without the "v", e.g. "2.2.0". */
  version: string;
}

/** Where `npm ci` (scripts/provision-k6.mjs) puts the binary it builds, relative to the project root. */
export const PROJECT_K6_DIR = join('.tools', 'k6', 'bin');

/** The k6 versions the harness runs (k6Suits): the pinned minor, as the docs promise. */
const SUITED = `v${PINNED_K6_VERSION.split('.').slice(0, 2).join('.')}`;

/** A cold start of a 60 MB binary on a slow disk takes a few seconds; a hang must not block the run. */
const VERSION_TIMEOUT_MS = 15_000;

const HOW_TO_INSTALL =
  `run \`npm ci\` in the ces-harness folder (it builds k6 v${PINNED_K6_VERSION} into ${PROJECT_K6_DIR} with Go >= 1.25), ` +
  `or set K6_BINARY to a k6 ${SUITED} binary`;

/** What to do when the first-use build could not happen; follows "install Go >= X and ". */
const AFTER_GO = `run the command again (it builds k6 v${PINNED_K6_VERSION} once, into the per-user cache), or set K6_BINARY to a k6 ${SUITED} binary`;

/**
 * The per-user cache folder of the pinned k6: $XDG_CACHE_HOME/ces-harness/k6/<version>, else
 * ~/.cache/…; one build serves every installed copy of the harness of that k6 version.
 */
export function userK6Dir(env: NodeJS.ProcessEnv, version: string = PINNED_K6_VERSION): string {
  const base = env.XDG_CACHE_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.cache');
  return join(resolve(base), 'ces-harness', 'k6', version);
}

// A live builder touches the lock every 10 s, so a lock a minute old was left by a build that died.
const BUILD_LOCK = { waitMs: BUILD_TIMEOUT_MS + 60_000, staleMs: 60_000, pollMs: 500, heartbeatMs: 10_000 };

/** How the first use gets its k6; tests inject one that needs no Go. */
export type K6Builder = typeof buildK6;

type K6Check = { ok: true; version: string } | { ok: false; why: string };

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    execFile(
      file,
      args,
      { env, timeout: VERSION_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true },
      (err, stdout, stderr) => (err ? rej(Object.assign(err, { stdout, stderr })) : res({ stdout, stderr })),
    );
  });
}

/** Runs `<path> version` and says whether it is a usable k6, or why not (one short clause). */
export async function checkK6(path: string, env: NodeJS.ProcessEnv = process.env): Promise<K6Check> {
  try {
    await access(path, constants.X_OK);
  } catch {
    return { ok: false, why: `${path} does not exist or is not executable` };
  }
  let out: string;
  try {
    const { stdout, stderr } = await run(path, ['version'], env);
    out = `${stdout}\n${stderr}`;
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
    if (err.killed)
      return { ok: false, why: `\`${path} version\` did not answer within ${VERSION_TIMEOUT_MS / 1000} s` };
    return { ok: false, why: `\`${path} version\` failed (${err.code ?? err.signal ?? err.message.split('\n')[0]})` };
  }
  const version = parseK6VersionOutput(out);
  if (version === undefined) return { ok: false, why: `\`${path} version\` did not print a k6 version` };
  if (!k6Suits(version, PINNED_K6_VERSION)) {
    return { ok: false, why: `${path} is k6 v${version}, not ${SUITED}.x` };
  }
  return { ok: true, version };
}

/**
 * The k6 to run scenarios with. Throws HarnessError K6_NOT_FOUND (exit 2) with one line saying
 * what was found and how to install the right one.
 */
export async function locateK6(
  env: NodeJS.ProcessEnv,
  projectRoot: string,
  options: { build?: K6Builder; say?: (line: string) => void } = {},
): Promise<LocatedK6> {
  const explicit = env.K6_BINARY?.trim();
  if (explicit) {
    const path = resolve(explicit);
    const check = await checkK6(path, env);
    if (check.ok) return { path, version: check.version };
    throw new HarnessError('K6_NOT_FOUND', `K6_BINARY: ${check.why}; unset K6_BINARY or ${HOW_TO_INSTALL}`);
  }

  const reasons: string[] = [];
  const cached = join(userK6Dir(env), EXE);
  const candidates = [resolve(projectRoot, PROJECT_K6_DIR, EXE), cached, onPath(EXE, env)];
  for (const path of candidates) {
    if (path === undefined) continue;
    const check = await checkK6(path, env);
    if (check.ok) return { path, version: check.version };
    // A missing project build or cache is the normal case before the first build; not worth naming.
    if (!check.why.endsWith('does not exist or is not executable')) reasons.push(check.why);
  }
  if (reasons.length > 0)
    throw new HarnessError('K6_NOT_FOUND', `k6 ${SUITED} not found (${reasons.join('; ')}); ${HOW_TO_INSTALL}`);
  return buildIntoCache(
    env,
    projectRoot,
    options.build ?? buildK6,
    options.say ?? ((line) => process.stderr.write(`ces-harness: ${line}\n`)),
  );
}

/**
 * The first use without any k6: build the pinned one into the per-user cache, once. Two runs
 * starting together take turns on a lock; the second finds the first's build and builds nothing.
 */
async function buildIntoCache(
  env: NodeJS.ProcessEnv,
  projectRoot: string,
  build: K6Builder,
  say: (line: string) => void,
): Promise<LocatedK6> {
  const binDir = userK6Dir(env);
  const path = join(binDir, EXE);
  const buildOnce = async (): Promise<LocatedK6> => {
    const done = await checkK6(path, env);
    if (done.ok) return { path, version: done.version };
    const built = await build({
      root: projectRoot,
      binDir,
      logFile: join(binDir, 'build.log'),
      fix: AFTER_GO,
      say,
      env,
    });
    if (!built.ok) throw new HarnessError('K6_NOT_FOUND', built.line);
    say(`built k6 v${built.version} at ${built.path} in ${built.seconds} s (${built.counts})`);
    const check = await checkK6(path, env);
    if (!check.ok)
      throw new HarnessError(
        'K6_NOT_FOUND',
        `the k6 built into ${binDir} is not usable: ${check.why}; set K6_BINARY to a k6 ${SUITED} binary`,
      );
    return { path, version: check.version };
  };
  try {
    await mkdir(binDir, { recursive: true, mode: 0o700 });
    return await withFileLockAsync(binDir, buildOnce, BUILD_LOCK);
  } catch (err) {
    if (err instanceof HarnessError) throw err;
    // The cache folder cannot be written, or another run held the build lock past its time: one line.
    throw new HarnessError(
      'K6_NOT_FOUND',
      `could not build k6 v${PINNED_K6_VERSION} into ${binDir}: ${(err as Error).message}; set K6_BINARY to a k6 ${SUITED} binary`,
    );
  }
}
