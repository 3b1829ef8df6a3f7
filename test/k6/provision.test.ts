// scripts/provision-k6.mjs runs from `npm ci`: it must never fail the install, and must say in one
// line what it did or what to do. The build itself (minutes) is not run here; these cover the
// decisions around it.

import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PINNED_K6_VERSION } from '../../src/k6/version.js';
import { isolatedProject, provision } from './provision-support.js';

describe.skipIf(process.platform === 'win32')('provision-k6.mjs', () => {
  let root: string;
  beforeAll(async () => {
    root = await isolatedProject();
  });

  it('does nothing when K6_BINARY is the pinned minor version', async () => {
    const k6 = join(await mkdtemp(join(tmpdir(), 'ces-fake-k6-')), 'k6');
    await writeFile(k6, `#!/bin/sh\necho "k6 v${PINNED_K6_VERSION} (go1.26.8, linux/amd64)"\n`);
    await chmod(k6, 0o755);
    const { stdout, stderr } = await provision(root, { K6_BINARY: k6 });
    expect(stdout).toBe(`ces-harness: using k6 v${PINNED_K6_VERSION} at ${k6} (K6_BINARY); nothing to build\n`);
    expect(stderr).toBe('');
  });

  it('is skipped with CES_SKIP_K6_PROVISION=1', async () => {
    const { stdout } = await provision(root, { CES_SKIP_K6_PROVISION: '1' });
    expect(stdout).toContain('not provisioning k6');
  });

  it('without Go, prints one line with the fix and still exits 0', async () => {
    const { stdout, stderr } = await provision(root, {});
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`k6 v${PINNED_K6_VERSION} is not installed and Go is not on PATH`);
    expect(stderr).toMatch(/Go >= 1\.\d+/);
    expect(stderr).toContain('K6_BINARY');
  });
});
