// A spawned CLI or action step that never ends must not outlive its test: past its bound it is
// killed together with what it started, k6-like children in process groups of their own (one that
// kept the marker, one that cleared its environment), and only then does the test's wait fail.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runScript } from '../ci/action-steps.js';
import { alive } from '../client/run-client.js';
import { startCli } from './cli.js';

const NEVER_ENDS = `
const { spawn } = require('node:child_process');
const idle = ['-e', 'setTimeout(() => {}, 60000)'];
const kept = spawn(process.execPath, idle, { stdio: 'ignore', detached: true });
const cleared = spawn(process.execPath, idle, { stdio: 'ignore', detached: true, env: {} });
console.log('started', kept.pid, cleared.pid);
setInterval(() => {}, 1000);
`;

const script = join(mkdtempSync(join(tmpdir(), 'ces-bounded-')), 'never-ends.cjs');
writeFileSync(script, NEVER_ENDS);

it.each([
  { via: 'startCli', done: () => startCli([], { bin: script, timeoutMs: 1_500 }).done },
  { via: 'runScript', done: () => runScript(`"${process.execPath}" "${script}"`, {}, tmpdir(), 1_500) },
])(
  '$via: past its bound the process and all it started are killed, then the wait fails',
  async ({ done }) => {
    const error = await done().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/did not end within 1500 ms; it and all it started were killed/);
    const pids = /started (\d+) (\d+)/.exec(error!.message)!.slice(1).map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  },
  20_000,
);
