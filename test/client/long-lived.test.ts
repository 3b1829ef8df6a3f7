// Clients that are services: they never exit by themselves. Stopped at the time limit while still
// working, they are judged on what they did and pass; and whatever a client starts, a daemon in a
// session of its own included, ends with the run, and the run ends in time.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_FILES, alive, fixture, runClientCli, stillAliveAfter } from './run-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'ces-long-lived-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const LIMIT_S = 4;
/** The run itself (from the client's start to the end of its last process): the limit, the SIGTERM grace, the pipes' grace. */
const RUN_BOUND_MS = (LIMIT_S + 3) * 1000;
/** The whole command on a busy machine: that, plus starting, the emulator and the report. */
const WALL_BOUND_MS = RUN_BOUND_MS + 10_000;

// Both describes side by side (describe.concurrent): each run waits out its client's 4 s limit.
describe.concurrent('ces-harness client with a client that never exits', () => {
  it(
    'stops it at the limit while still working, judges what it did (exit 0), and says so in every format',
    { timeout: 40_000 },
    async ({ expect }) => {
      const run = await runClientCli(
        ['--scenario', 'steady', '--time-limit', String(LIMIT_S)],
        [process.execPath, fixture('never-exits.mjs')],
        { timeoutMs: 30_000 },
      );
      expect({ code: run.code, failed: run.failed }).toEqual({ code: 0, failed: [] });
      expect(run.report!.client!.runs[0]).toMatchObject({ stopped: 'time-limit', still_working: true });
      const exit = run.report!.checks.find((c) => c.id === 'client.exit-code')!;
      expect(exit.status).toBe('pass');
      expect(exit.message).toMatch(new RegExp(`stopped at the ${LIMIT_S} s time limit while still working`));
      // The check's message in every format, and the run table's "Ended" cell where there is one.
      for (const file of REPORT_FILES)
        expect(run.byFile[file], file).toMatch(/stopped at the 4 s time limit while still working/);
      for (const file of REPORT_FILES.filter((f) => f !== 'report.json'))
        expect(run.byFile[file], file).toMatch(/stopped at the time limit after [\d.]+ s while still working/);
      expect(run.stdout).toMatch(/stopped at the 4 s time limit while still working in steady/);
    },
  );
});

const DAEMONS = [
  { name: 'the client exits; its daemon holds its stdout and stderr', env: { DAEMON_STDIO: 'inherit' }, found: true },
  { name: 'the client exits; its daemon has no pipe', env: {}, found: true },
  {
    name: 'the client is stopped at the limit; its daemon holds its stdout and stderr',
    env: { DAEMON_STDIO: 'inherit', FOREVER: '1' },
    found: true,
  },
  {
    name: 'the client is stopped at the limit; its daemon cleared its environment',
    env: { DAEMON_ENV: 'clear', FOREVER: '1' },
    found: true,
  },
  // Unmarked and orphaned, nothing leads to it (run-marker.ts): the run must still end in time.
  {
    name: 'the client exits; its daemon cleared its environment and holds its stdout',
    env: { DAEMON_ENV: 'clear', DAEMON_STDIO: 'inherit' },
    found: false,
  },
] as const;

const escaped: number[] = [];
afterAll(() => {
  for (const pid of escaped) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe.concurrent('ces-harness client with a client that leaves a daemon of its own session', () => {
  // Side by side: each run waits out its client's 4 s limit, with its own emulator and pid file.
  it.concurrent.for(DAEMONS)(
    '$name: the run ends in time (and the daemon with it: $found)',
    { timeout: 60_000 },
    async ({ env, found }, { expect }) => {
      const pidFile = join(scratch, `${Object.entries(env).flat().join('-')}.pid`);
      const started = Date.now();
      const run = await runClientCli(
        ['--scenario', 'steady', '--time-limit', String(LIMIT_S)],
        [process.execPath, fixture('leaves-daemon.mjs')],
        { env: { ...env, DAEMON_PID_FILE: pidFile }, timeoutMs: 50_000 },
      );
      const wallMs = Date.now() - started;
      const daemon = Number(readFileSync(pidFile, 'utf8'));
      expect(daemon).toBeGreaterThan(0);
      if (!found) escaped.push(daemon);
      // A found daemon was SIGKILLed before the run ended; an escaped one sleeps on for two minutes.
      const daemonAlive = found ? await stillAliveAfter(daemon, 2_000) : alive(daemon);
      expect({ code: run.code, failed: run.failed, daemonAlive }).toEqual({
        code: 0,
        failed: [],
        daemonAlive: !found,
      });
      expect(run.report!.client!.runs[0]!.duration_ms).toBeLessThan(RUN_BOUND_MS);
      expect(wallMs).toBeLessThan(WALL_BOUND_MS);
    },
  );
});
