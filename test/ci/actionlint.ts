// actionlint for the workflow tests, built once from source into .tools/actionlint/bin with the Go
// toolchain (the project's machines have Go; nothing prebuilt is downloaded). Missing Go or a
// failed build skips the lint test with a reason on a developer machine, and fails it on CI.

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../k6/support.js';

export const ACTIONLINT_VERSION = 'v1.7.7';
const BIN_DIR = join(projectRoot, '.tools', 'actionlint', 'bin');
export const ACTIONLINT = join(BIN_DIR, 'actionlint');

export async function actionlint(): Promise<string | undefined> {
  if (existsSync(ACTIONLINT)) return ACTIONLINT;
  try {
    await promisify(execFile)('go', ['install', `github.com/rhysd/actionlint/cmd/actionlint@${ACTIONLINT_VERSION}`], {
      cwd: projectRoot,
      timeout: 240_000,
      env: {
        ...process.env,
        GOBIN: BIN_DIR,
        GOTOOLCHAIN: 'local',
        GOPROXY: process.env.GOPROXY ?? 'https://proxy.golang.org',
        GOFLAGS: '-mod=mod',
      },
    });
    return ACTIONLINT;
  } catch (err) {
    if (process.env.CI) throw new Error(`could not build actionlint ${ACTIONLINT_VERSION}: ${(err as Error).message}`);
    console.warn(`skipping the actionlint test: could not build actionlint (${(err as Error).message.split('\n')[0]})`);
    return undefined;
  }
}
