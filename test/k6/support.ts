// Shared by the k6 tests: the real k6, found the way the harness finds it (K6_BINARY, then the
// project's .tools/k6/bin from `npm ci`, then PATH). Without one the k6-running tests skip with a
// reason on a developer machine, and fail on CI (CI=true), where `npm ci` must have built it.

import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { locateK6, type LocatedK6 } from '../../src/k6/locate.js';
import { findProjectRoot } from '../../src/fs/project-root.js';

export const projectRoot = findProjectRoot();

export async function realK6(): Promise<LocatedK6 | undefined> {
  try {
    return await locateK6(process.env, projectRoot);
  } catch (err) {
    if (process.env.CI) throw err;
    console.warn(`skipping tests that run k6: ${(err as Error).message}`);
    return undefined;
  }
}

/** Bundles the scenarios into a fresh folder, so these tests never race a build of dist/. */
export async function bundleScenarios(): Promise<string> {
  const outdir = await mkdtemp(join(tmpdir(), 'ces-k6-bundles-'));
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', 'scenarios', '--outdir', outdir], {
    cwd: projectRoot,
  });
  return outdir;
}
