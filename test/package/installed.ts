// The package as an integrator gets it: `npm pack` of this checkout, installed into an empty folder
// the way a CI pipeline installs it. Offline: the folder's lockfile names the tarball and this
// checkout's locked versions of its dependencies, which `npm ci` in the checkout left in the npm
// cache, so `npm ci --offline` needs no registry.

import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { projectRoot } from '../k6/support.js';

const run = promisify(execFile);

export interface Installed {
  /** The folder the package is installed in (its node_modules/ces-harness). */
  dir: string;
  /** The installed bin script. */
  bin: string;
  tarball: string;
}

/** Packs the built checkout (no lifecycle scripts: `npm test` has built dist/ already) into `into`. */
export async function pack(into: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
    cwd: projectRoot,
    timeout: 120_000,
    maxBuffer: 16 << 20,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  return join(into, packed!.filename);
}

/** A new folder holding the packed harness, installed from `tarball` offline. */
export async function installPacked(tarball: string): Promise<Installed> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-installed-'));
  const manifest = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
  };
  const lock = JSON.parse(await readFile(join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'ci-pipeline', dependencies: { 'ces-harness': spec } },
    'node_modules/ces-harness': {
      version: manifest.version,
      resolved: spec,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
    },
  };
  for (const dep of Object.keys(manifest.dependencies))
    packages[`node_modules/${dep}`] = lock.packages[`node_modules/${dep}`];
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'ci-pipeline', private: true, dependencies: { 'ces-harness': spec } }),
  );
  await writeFile(
    join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'ci-pipeline', lockfileVersion: 3, requires: true, packages }),
  );
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir, timeout: 120_000 });
  return { dir, bin: join(dir, 'node_modules', 'ces-harness', 'bin', 'ces-harness.js'), tarball };
}

/** Packs and installs once for the calling describe block, and removes both folders after it. */
export function installedForSuite(): () => Installed {
  let packed: string | undefined;
  let installed: Installed | undefined;
  beforeAll(async () => {
    packed = await mkdtemp(join(tmpdir(), 'ces-pack-'));
    installed = await installPacked(await pack(packed));
  }, 240_000);
  afterAll(async () => {
    for (const dir of [packed, installed?.dir]) if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => installed!;
}
