// The bin exits once main has returned, even when a handle was left open by mistake: a CI job must
// not wait forever on a finished run. The real bin, in a copy of the package whose dist/cli.js is
// a stand-in that leaves a timer running and returns exit code 3.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'ces-bin-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the bin', () => {
  it('exits with main’s code when a handle lingers after main returned', () => {
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'dist'));
    copyFileSync(resolve('bin/ces-harness.js'), join(root, 'bin/ces-harness.js'));
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    writeFileSync(
      join(root, 'dist/cli.js'),
      'export async function main() { setInterval(() => {}, 1000); return 3; }\n',
    );
    const started = Date.now();
    // Bounded: without the guard the stand-in runs until this timeout kills it.
    const run = spawnSync(process.execPath, [join(root, 'bin/ces-harness.js')], {
      timeout: 20_000,
      env: { PATH: process.env['PATH'], CES_DEBUG: '1' },
      encoding: 'utf8',
    });
    expect(run.signal, 'killed by the test timeout: the bin never exited').toBeNull();
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/exiting with handles still open: .*Timeout/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
