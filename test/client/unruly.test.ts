// Clients that hang, crash, flood the emulator or print their secret are stopped within the time
// bound, reported, and leave no process behind (their whole process group is killed). A hang is a
// stall: no request for longer than the scenario allows, and no exit.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { startCli } from '../helpers/cli.js';
import { alive, fixture, runClientCli } from './run-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'ces-unruly-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The harness' own ceiling per run: the time limit, the SIGTERM grace, start and report on a busy machine. */
const boundMs = (limitS: number) => (limitS + 1 + 10) * 1000;

describe('ces-harness client with an unruly client', () => {
  it('stops a hanging client at the time limit, grandchild included, and fails it as stalled', async () => {
    const pidFile = join(scratch, 'hang.pid');
    const started = Date.now();
    const run = await runClientCli(
      ['--scenario', 'steady', '--time-limit', '3'],
      [process.execPath, fixture('hangs.mjs')],
      { env: { HANG_PID_FILE: pidFile } },
    );
    expect(Date.now() - started).toBeLessThan(boundMs(3));
    expect(run.code).toBe(1);
    expect(run.report!.client!.runs[0]!.stopped).toBe('time-limit');
    expect(run.report!.client!.runs[0]!.still_working).toBe(false);
    expect(run.failed).toContain('client.exit-code');
    expect(run.report!.checks.find((c) => c.id === 'client.exit-code')!.message).toMatch(
      /stalled: no request in the last [\d.]+ s \(1\.0 s without one is a stall in this scenario\), and it had not exited when the 3 s time limit stopped it/,
    );
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    expect(grandchild).toBeGreaterThan(0);
    expect(alive(grandchild)).toBe(false);
  });

  it('on Ctrl-C stops the client and its grandchild, and writes a partial report', async () => {
    const pidFile = join(scratch, 'interrupted.pid');
    const reportDir = join(scratch, 'interrupted-report');
    const cli = startCli(['client', '--report-dir', reportDir, '--', process.execPath, fixture('hangs.mjs')], {
      env: { HANG_PID_FILE: pidFile },
    });
    // The client is running once its grandchild is: wait for that (bounded), then interrupt.
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(pidFile)).toBe(true);
    cli.child.kill('SIGINT');
    const done = await cli.done;
    expect(done.code).toBe(1);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as {
      untested: Array<{ stage: string }>;
      client: { runs: Array<{ stopped: string }> };
    };
    expect(report.client.runs.map((r) => r.stopped)).toEqual(['interrupted']);
    expect(report.untested.map((u) => u.stage)).toEqual(['client']);
    expect(alive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('reports a crashing client by its exit code', async () => {
    const run = await runClientCli(['--scenario', 'steady'], [process.execPath, fixture('crashes.mjs')]);
    expect(run.code).toBe(1);
    expect(run.statuses['client.exit-code']).toBe('fail');
    expect(run.report!.client!.runs[0]).toMatchObject({ exit_code: 1, stopped: null });
  });

  it('stops a flooding client at the request cap, long before the time limit', async () => {
    const started = Date.now();
    const run = await runClientCli(
      ['--scenario', 'steady', '--time-limit', '30'],
      [process.execPath, fixture('floods.mjs')],
    );
    expect(Date.now() - started).toBeLessThan(boundMs(3));
    expect(run.report!.client!.runs[0]!.stopped).toBe('flood');
    expect(run.failed).toContain('client.exit-code');
    expect(run.failed).toContain('client.rate-limit-wait');
  });

  it('stops a client that prints its secret, and the secret reaches no output', async () => {
    const secretFile = join(scratch, 'secret');
    const started = Date.now();
    const run = await runClientCli(
      ['--scenario', 'steady', '--time-limit', '30'],
      [process.execPath, fixture('prints-secret.mjs')],
      { env: { SECRET_FILE: secretFile } },
    );
    expect(Date.now() - started).toBeLessThan(boundMs(3));
    expect(run.report!.client!.runs[0]!.stopped).toBe('secret-printed');
    expect(run.failed).toContain('client.secret-kept');
    // The echoed line is redacted; the secret is in no terminal line and no report file.
    expect(run.stderr).toMatch(/client\| debug: using secret \[redacted\]/);
    const secret = readFileSync(secretFile, 'utf8');
    expect(secret.length).toBeGreaterThan(10);
    expect(run.stdout + run.stderr + run.files).not.toContain(secret);
  });
});
