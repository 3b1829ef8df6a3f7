// The bench's runCommand past its time limit: the whole process group goes, not the child alone.
// A grandchild left running (k6's, a shell's) held the CPU the next measurement reads.

import { expect, it } from 'vitest';
import { runCommand } from '../../bench/proc.js';
import { alive } from '../client/run-client.js';

it('a command past its time limit is stopped with its grandchildren, and reported as timed out', async () => {
  const script = `const g = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' }); console.log('grandchild', g.pid); setTimeout(() => {}, 30000)`;
  const r = await runCommand(process.execPath, ['-e', script], { timeoutMs: 1_000 });
  expect(r.timedOut).toBe(true);
  const grandchild = Number(/grandchild (\d+)/.exec(r.stdout)?.[1]);
  expect(grandchild).toBeGreaterThan(0);
  await expect.poll(() => alive(grandchild), { timeout: 5_000 }).toBe(false);
}, 20_000);

it('a command that ends by itself: its code, output and cwd', async () => {
  const r = await runCommand(process.execPath, ['-e', 'console.log(process.cwd()); process.exitCode = 3'], {
    timeoutMs: 10_000,
    cwd: '/',
  });
  expect(r).toMatchObject({ code: 3, stdout: '/\n', timedOut: false });
});
