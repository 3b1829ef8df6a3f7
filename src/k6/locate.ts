// Finding the k6 binary the scenarios run on. Order: K6_BINARY (the user's explicit choice), then
// the project's own build in .tools/k6/bin (what `npm ci` provisions), then PATH. An explicit
// K6_BINARY that is unusable is an error, not a reason to fall back silently: the user asked for it.

import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import { HarnessError } from '../errors.js';
import { PINNED_K6_VERSION, REQUIRED_K6_MAJOR, parseK6VersionOutput } from './version.js';

export interface LocatedK6 {
  /** Absolute path of the binary. */
  path: string;
  /** Semver without the "v", e.g. "2.2.0". */
  version: string;
}

/** Where `npm ci` (scripts/provision-k6.mjs) puts the binary it builds, relative to the project root. */
export const PROJECT_K6_DIR = join('.tools', 'k6', 'bin');

const EXE = process.platform === 'win32' ? 'k6.exe' : 'k6';

/** A cold start of a 60 MB binary on a slow disk takes a few seconds; a hang must not block the run. */
const VERSION_TIMEOUT_MS = 15_000;

const HOW_TO_INSTALL =
  `run \`npm ci\` in the ces-harness folder (it builds k6 v${PINNED_K6_VERSION} into ${PROJECT_K6_DIR} with Go >= 1.25), ` +
  `or set K6_BINARY to a k6 v${REQUIRED_K6_MAJOR} binary`;

type Probe = { ok: true; version: string } | { ok: false; why: string };

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    execFile(file, args, { env, timeout: VERSION_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true }, (err, stdout, stderr) =>
      err ? rej(Object.assign(err, { stdout, stderr })) : res({ stdout, stderr }),
    );
  });
}

/** Runs `<path> version` and says whether it is a usable k6, or why not (one short clause). */
export async function probeK6(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Probe> {
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
    if (err.killed) return { ok: false, why: `\`${path} version\` did not answer within ${VERSION_TIMEOUT_MS / 1000} s` };
    return { ok: false, why: `\`${path} version\` failed (${err.code ?? err.signal ?? err.message.split('\n')[0]})` };
  }
  const version = parseK6VersionOutput(out);
  if (version === undefined) return { ok: false, why: `\`${path} version\` did not print a k6 version` };
  if (Number(version.split('.')[0]) !== REQUIRED_K6_MAJOR) {
    return { ok: false, why: `${path} is k6 v${version}, not v${REQUIRED_K6_MAJOR}.x` };
  }
  return { ok: true, version };
}

async function onPath(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, EXE);
    try {
      await access(candidate, constants.X_OK);
      return resolve(candidate);
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/**
 * The k6 to run scenarios with. Throws HarnessError K6_NOT_FOUND (exit 2) with one line saying
 * what was found and how to install the right one.
 */
export async function locateK6(env: NodeJS.ProcessEnv, projectRoot: string): Promise<LocatedK6> {
  const explicit = env.K6_BINARY?.trim();
  if (explicit) {
    const path = resolve(explicit);
    const probe = await probeK6(path, env);
    if (probe.ok) return { path, version: probe.version };
    throw new HarnessError('K6_NOT_FOUND', `K6_BINARY: ${probe.why}; unset K6_BINARY or ${HOW_TO_INSTALL}`);
  }

  const reasons: string[] = [];
  const candidates = [resolve(projectRoot, PROJECT_K6_DIR, EXE), await onPath(env)];
  for (const path of candidates) {
    if (path === undefined) continue;
    const probe = await probeK6(path, env);
    if (probe.ok) return { path, version: probe.version };
    // A missing project build is the normal case before `npm ci`; not worth naming.
    if (!probe.why.endsWith('does not exist or is not executable')) reasons.push(probe.why);
  }
  const found = reasons.length > 0 ? ` (${reasons.join('; ')})` : ' (not in K6_BINARY, .tools/k6/bin or PATH)';
  throw new HarnessError('K6_NOT_FOUND', `k6 v${REQUIRED_K6_MAJOR} not found${found}; ${HOW_TO_INSTALL}`);
}
