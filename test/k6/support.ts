// Shared by the k6 tests: the real k6, found the way the harness finds it (K6_BINARY, then the
// project's .tools/k6/bin from `npm ci`, then PATH). Without one the k6-running tests skip with a
// reason on a developer machine, and fail on CI (CI=true), where `npm ci` must have built it.

import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { scenarioEnv } from '../../src/k6/contract.js';
import { runScenario, type RunScenarioResult } from '../../src/k6/run.js';
import { createTestPki } from '../tls/pki.js';
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
 * scenarios are, and a TLS server on loopback (its CA given to k6) that answers its requests with
 * `onRequest`; `run` starts k6 on it with the scenario inputs (CES_*) of readConfig().
 */
export async function wrapperScriptTarget(
  source: string,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{
  run(
    k6Path: string,
    runId: string,
    requestTimeoutS: number,
    memoryCapBytes?: number,
  ): Promise<{ run: RunScenarioResult; env: Record<string, string> }>;
  close(): void;
}> {
  const pki = createTestPki();
  const server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, onRequest);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `https://localhost:${(server.address() as AddressInfo).port}`;
  const dir = await mkdtemp(join(tmpdir(), 'ces-k6-script-'));
  await writeFile(join(dir, 'script.ts'), source);
  await writeFile(join(dir, 'ca.pem'), pki.caPem);
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
  return {
    run: async (k6Path, runId, requestTimeoutS, memoryCapBytes) => {
      const env = scenarioEnv({
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
      const run = await runScenario({
        k6Path,
        bundle: join(dir, 'script.js'),
        env,
        summaryFile: join(dir, 'summary.json'),
        caFile: join(dir, 'ca.pem'),
        timeoutMs: 60_000,
        baseEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
        ...(memoryCapBytes !== undefined && { memoryCapBytes }),
      });
      return { run, env };
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
