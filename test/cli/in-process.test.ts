// runCliInProcess runs `main` inside the test worker, where other runs may be under way at the same
// time: each run must see only its own folder, environment and stop signals, and leave the process
// (cwd, env, signal handlers) as it found it. A stop signal sent to a run's own source stops that
// run as Ctrl-C stops the bin (the spawned proof is signals.test.ts).

import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { STOP_SIGNALS } from '../../src/cli/stop-signals.js';
import type { Report } from '../../src/report/model.js';
import { runCliInProcess, testIo } from '../helpers/cli.js';

const CHECK = ['check', '--only', 'health.no-credentials', '--report-dir', 'r'];
const painted = /\x1b\[\d+m/;

describe('runs of main in one process', () => {
  it('two at once each keep to their own folder and environment, and leave the process as it was', async () => {
    const handlers = STOP_SIGNALS.map((s) => process.listenerCount(s));
    const env = { ...process.env };
    const cwd = process.cwd();
    const [a, b] = [mkdtempSync(join(tmpdir(), 'ces-inproc-')), mkdtempSync(join(tmpdir(), 'ces-inproc-'))];
    const [colour, plain] = await Promise.all([
      runCliInProcess(CHECK, { cwd: a, env: { FORCE_COLOR: '1' } }),
      runCliInProcess(CHECK, { cwd: b }),
    ]);
    expect(colour.code, colour.stderr).toBe(0);
    expect(plain.code, plain.stderr).toBe(0);
    expect(colour.stdout).toMatch(painted);
    expect(plain.stdout).not.toMatch(painted);
    // --report-dir r from each run's own folder, and named in its own summary.
    expect(colour.stdout).toContain(`report: ${join(a, 'r')}`);
    expect(plain.stdout).toContain(`report: ${join(b, 'r')}`);
    for (const dir of [a, b]) expect(existsSync(join(dir, 'r', 'report.json'))).toBe(true);
    expect(existsSync(join(cwd, 'r'))).toBe(false);
    expect(process.cwd()).toBe(cwd);
    expect(process.env).toEqual(env);
    expect(STOP_SIGNALS.map((s) => process.listenerCount(s))).toEqual(handlers);
  });

  it("a SIGINT on the run's own source stops it with a partial report (exit 1); a second one asks io to exit", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-inproc-'));
    const signals = new EventEmitter();
    const exits: number[] = [];
    const io = { ...testIo({ cwd }), signals, exit: (code: number) => void exits.push(code) };
    // Sent once the job listens for it: the check has started, nothing has been reported yet.
    signals.on('newListener', (name) => {
      if (name === 'SIGHUP')
        setImmediate(() => {
          signals.emit('SIGINT');
          signals.emit('SIGINT');
        });
    });
    const code = await main(CHECK, io);
    const { stderr } = io.output();
    expect(code, stderr).toBe(1);
    expect(stderr).toMatch(/interrupted \(SIGINT\): finishing what is in flight and writing a partial report/);
    expect(exits).toEqual([130]);
    const report = JSON.parse(readFileSync(join(cwd, 'r', 'report.json'), 'utf8')) as Report;
    expect(report.untested).toContainEqual(expect.objectContaining({ stage: 'run' }));
    expect(STOP_SIGNALS.map((s) => signals.listenerCount(s))).toEqual([0, 0, 0]);
  });

  it('a run past its limit is stopped with SIGTERM, writes its partial report and ends, and the call still fails', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-inproc-'));
    // `serve` runs until it is stopped: only the helper's SIGTERM ends it.
    const failed = await runCliInProcess(['serve', '--port', '0', '--tls-dir', 'tls'], { cwd, timeoutMs: 1_500 }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(failed).toMatch(
      /^the CLI did not return within 1500 ms \(stopped with SIGTERM: it then ended with exit 0\):/,
    );
    expect(failed).toContain('"environment":"sandbox"');
    // A run that writes a report: the check's job stopped before its first request is reported as interrupted.
    const stopped = await runCliInProcess(['check', '--report-dir', 'r', '--expiry-wait', '0'], {
      cwd,
      timeoutMs: 1,
    }).then(
      () => undefined,
      (err: Error) => err.message,
    );
    expect(stopped).toMatch(/stopped with SIGTERM: it then ended with exit 1/);
    const report = JSON.parse(readFileSync(join(cwd, 'r', 'report.json'), 'utf8')) as Report;
    expect(report.untested).toContainEqual(expect.objectContaining({ stage: 'run' }));
  });
});
