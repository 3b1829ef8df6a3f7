// Running scripts/provision-k6.mjs in a project tree of its own, for the provisioning tests.

import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from './support.js';

const run = promisify(execFile);

/** A copy of the script in a project tree of its own, so the real .tools/ does not interfere. */
export async function isolatedProject(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'ces-provision-'));
  await mkdir(join(root, 'scripts'));
  await mkdir(join(root, 'tools', 'k6'), { recursive: true });
  for (const script of ['provision-k6.mjs', 'k6-build.mjs', 'go-progress.mjs'])
    await copyFile(join(projectRoot, 'scripts', script), join(root, 'scripts', script));
  await copyFile(join(projectRoot, 'tools', 'k6', 'go.mod'), join(root, 'tools', 'k6', 'go.mod'));
  return root;
}

export async function provision(root: string, env: Record<string, string>) {
  // An empty PATH: no go, no k6, unless a test puts one there.
  const { stdout, stderr } = await run(process.execPath, [join(root, 'scripts', 'provision-k6.mjs')], {
    env: { PATH: join(root, 'empty-path'), HOME: root, ...env },
  });
  return { stdout, stderr };
}
