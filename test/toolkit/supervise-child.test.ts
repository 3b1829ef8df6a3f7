// The shared child supervisor on real processes (node -e): exit code and output, the time limit,
// SIGKILL after the grace for a child that ignores SIGTERM, the whole group killed (a grandchild
// too), output pipes held by a grandchild not keeping the run waiting, the first stop reason kept,
// a command that cannot start. Every child is bounded by its time limit; every wait by the test's.

import { describe, expect, it } from 'vitest';
import { OutputTail, superviseChild } from '../../src/toolkit/supervise-child.js';
import { alive } from '../client/run-client.js';

const node = (script: string, timeLimitMs = 10_000, termGraceMs = 300) => {
  const out: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  const child = superviseChild<'flood' | 'interrupted'>({
    argv: [process.execPath, '-e', script],
    env: process.env,
    timeLimitMs,
    termGraceMs,
    onOutput: (chunk, stream) => (out[stream] += chunk.toString('utf8')),
  });
  return { child, out };
};

/** A grandchild that sleeps 30 s, its pid printed on stdout. */
const GRANDCHILD = `const g = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'inherit' }); console.log('grandchild', g.pid);`;

describe('superviseChild', () => {
  it('reports the exit code and passes on both streams', async () => {
    const { child, out } = node(`process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3;`);
    const outcome = await child.done;
    expect({ ...outcome, durationMs: 0 }).toEqual({
      exitCode: 3,
      signal: null,
      stopped: null,
      stoppedMs: null,
      durationMs: 0,
    });
    expect(out).toEqual({ stdout: 'out', stderr: 'err' });
  });

  it('stops a child past its time limit with SIGTERM', async () => {
    const { child } = node(`setTimeout(() => {}, 30_000)`, 300);
    const outcome = await child.done;
    expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGTERM', stopped: 'time-limit' });
    expect(outcome.durationMs).toBeLessThan(5_000);
  });

  it('SIGKILLs a child that ignores SIGTERM once the grace is over', async () => {
    const { child, out } = node(
      `process.on('SIGTERM', () => console.log('ignored')); console.log('ready'); setTimeout(() => {}, 30_000)`,
    );
    await expect.poll(() => out.stdout, { timeout: 5_000 }).toContain('ready');
    child.stop('flood');
    const outcome = await child.done;
    expect(outcome).toMatchObject({ signal: 'SIGKILL', stopped: 'flood' });
    expect(out.stdout).toContain('ignored');
  });

  it('kills the whole group when stopped, and keeps the first reason given', async () => {
    const { child, out } = node(`${GRANDCHILD} setTimeout(() => {}, 30_000)`);
    await expect.poll(() => out.stdout, { timeout: 5_000 }).toContain('grandchild');
    const grandchild = Number(/grandchild (\d+)/.exec(out.stdout)![1]);
    child.stop('interrupted');
    child.stop('flood');
    expect((await child.done).stopped).toBe('interrupted');
    await expect.poll(() => alive(grandchild), { timeout: 5_000 }).toBe(false);
  });

  it('does not wait for a grandchild holding the output pipes once the child has exited', async () => {
    const { child, out } = node(`${GRANDCHILD} setTimeout(() => process.exit(0), 100)`);
    const outcome = await child.done;
    expect(outcome).toMatchObject({ exitCode: 0, stopped: null });
    expect(outcome.durationMs).toBeLessThan(5_000);
    const grandchild = Number(/grandchild (\d+)/.exec(out.stdout)![1]);
    await expect.poll(() => alive(grandchild), { timeout: 5_000 }).toBe(false);
  });

  it('cuts the output pipes a process outside the group holds, once the child has exited', async () => {
    // detached: a session of its own, out of reach of the group kill, as a daemon would be.
    const { child, out } = node(
      `const g = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'inherit', detached: true }); console.log('daemon', g.pid); setTimeout(() => process.exit(0), 100)`,
    );
    try {
      const outcome = await child.done;
      expect(outcome).toMatchObject({ exitCode: 0, stopped: null });
      expect(outcome.durationMs).toBeLessThan(5_000);
    } finally {
      const daemon = /daemon (\d+)/.exec(out.stdout)?.[1];
      if (daemon !== undefined && alive(Number(daemon))) process.kill(Number(daemon), 'SIGKILL');
    }
  });

  it('rejects when the command cannot start', async () => {
    const child = superviseChild({
      argv: ['/nonexistent/ces-harness-no-such-command'],
      env: process.env,
      timeLimitMs: 5_000,
      termGraceMs: 100,
      onOutput: () => undefined,
    });
    await expect(child.done).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('OutputTail', () => {
  it.each([
    { chunks: ['abc', 'def'], max: 4, want: 'cdef' },
    { chunks: ['abcdef'], max: 4, want: 'cdef' },
    { chunks: ['ab'], max: 4, want: 'ab' },
    { chunks: ['a', 'b', 'c', 'd', 'e'], max: 2, want: 'de' },
    { chunks: [], max: 4, want: '' },
  ])('keeps the last $max bytes of $chunks', ({ chunks, max, want }) => {
    const tail = new OutputTail(max);
    for (const c of chunks) tail.push(Buffer.from(c));
    expect(tail.text()).toBe(want);
  });

  it('holds at most its size and one chunk, however much is written', () => {
    const tail = new OutputTail(4096);
    for (let i = 0; i < 1_000; i++) tail.push(Buffer.alloc(1024, 'x'));
    expect(tail['size']).toBeLessThanOrEqual(4096 + 1024);
  });
});
