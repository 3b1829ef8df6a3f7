// actionlint (rhysd/actionlint, the GitHub Actions workflow linter) and shellcheck for the workflow
// tests. actionlint is built from the Go module proxy the way k6 is: tools/actionlint/go.mod pins
// its version and go.sum every dependency's hash, and the binary lands in the git-ignored
// .tools/actionlint/bin on first use (nothing prebuilt is downloaded). shellcheck is Debian's
// (.ci/run installs it), found on PATH or at SHELLCHECK_BINARY. A missing part skips the test
// that needs it, with the reason, on a developer machine and fails it on CI
// (test/helpers/real-parts.ts names it at the end of every run).

import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { goBinaryMissing, goBuilt } from './go-build.js';

const ROOT = findProjectRoot();
const MODULE_DIR = join(ROOT, 'tools', 'actionlint');
export const ACTIONLINT = process.env['ACTIONLINT_BINARY'] ?? join(ROOT, '.tools', 'actionlint', 'bin', 'actionlint');
export const SHELLCHECK = process.env['SHELLCHECK_BINARY'] ?? 'shellcheck';
/** Cold: a dozen small modules to download, ~10 s to compile on 2 cores. */
const BUILD_TIMEOUT_MS = 5 * 60_000;

/** The version tools/actionlint/go.mod pins, e.g. "v1.7.12". */
export const ACTIONLINT_VERSION =
  /github\.com\/rhysd\/actionlint\s+(v\d+\.\d+\.\d+)/.exec(readFileSync(join(MODULE_DIR, 'go.mod'), 'utf8'))?.[1] ??
  'unpinned';

/** Why actionlint can be neither found nor built here, or undefined when it can (for real-parts.ts). */
export const actionlintMissing = (): string | undefined => goBinaryMissing(ACTIONLINT);

/** Why shellcheck is not here, or undefined when it is. */
export const shellcheckMissing = (): string | undefined =>
  spawnSync(SHELLCHECK, ['--version']).error ? `${SHELLCHECK} not found` : undefined;

/**
 * The actionlint binary, built on first use; undefined (with the reason on stderr) when it cannot
 * be built on a developer machine. On CI it rejects: a linter that is not there proves nothing.
 */
export async function provisionActionlint(): Promise<string | undefined> {
  try {
    return await goBuilt(ACTIONLINT, MODULE_DIR, ['github.com/rhysd/actionlint/cmd/actionlint'], BUILD_TIMEOUT_MS);
  } catch (err) {
    const why = `could not build actionlint ${ACTIONLINT_VERSION}: ${(err as Error).message.split('\n')[0]}`;
    if (process.env['CI'])
      throw new Error(`${why}; install Go >= 1.25 (the Go module proxy reachable), or set ACTIONLINT_BINARY`);
    console.warn(`skipping the actionlint tests: ${why}`);
    return undefined;
  }
}

export interface Lint {
  /** actionlint's exit code: 0 clean, 1 problems found, >1 it failed. */
  code: number;
  /** Each problem, with its line and snippet; empty when clean. */
  out: string;
}

/** actionlint on `files`, from the project root (so `uses: ./` is this repository's action.yml). */
export async function lint(binary: string, files: string[], shellcheck: string | null): Promise<Lint> {
  const args = ['-no-color', `-shellcheck=${shellcheck ?? ''}`, ...files];
  return promisify(execFile)(binary, args, { cwd: ROOT, timeout: 60_000 }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof e.code === 'number' ? e.code : 2,
      out: `${e.stdout ?? ''}${e.stderr ?? ''}`,
    }),
  );
}
