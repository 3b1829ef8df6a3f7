// Shared by the k6 tests: the real k6, found the way the harness finds it (K6_BINARY, then the
// project's .tools/k6/bin from `npm ci`, then PATH). Without one the k6-running tests skip with a
// reason on a developer machine, and fail on CI (CI=true), where `npm ci` must have built it.

import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { scenarioEnv } from '../../src/k6/contract.js';
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

/**
 * A tiny k6 script built from the scenarios' own wrappers (scenarios/lib), bundled as the
 * scenarios are, with the CA of a loopback TLS server beside it: `{ dir, script, caFile }`.
 */
export async function bundleWrapperScript(
  source: string,
  caPem: string,
): Promise<{ dir: string; script: string; caFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-script-'));
  await writeFile(join(dir, 'script.ts'), source);
  await writeFile(join(dir, 'ca.pem'), caPem);
  await build({
    entryPoints: [join(dir, 'script.ts')],
    outfile: join(dir, 'script.js'),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    external: ['k6', 'k6/*'],
    logLevel: 'error',
  });
  return { dir, script: join(dir, 'script.js'), caFile: join(dir, 'ca.pem') };
}

/** The scenario inputs (CES_*) such a script reads through readConfig(). */
export const wrapperScriptEnv = (baseUrl: string, runId: string, requestTimeoutS: number): Record<string, string> =>
  scenarioEnv({
    baseUrl,
    clientId: 'id',
    clientSecret: 'secret-value',
    tokenLifetimeS: 86_400,
    clockToleranceS: 2,
    rate: 1,
    durationS: 1,
    vus: 1,
    runId,
    requestTimeoutS,
  });
