// SIGTERM (a CI job cancelled, `docker stop`) and SIGHUP (the terminal closed) stop a run the way
// the first Ctrl-C does: what is in flight finishes, the partial report is written and says it is
// partial, every temp file goes, exit 1. A second signal quits at once with 128 + its number, and
// still leaves no temp file and no k6 behind. Each run gets a private TMPDIR to look into.

import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { startCli } from '../helpers/cli.js';
import { realK6 } from '../k6/support.js';

const k6 = await realK6();
const work = () => mkdtempSync(join(tmpdir(), 'ces-signals-'));

/** Resolves once `dir` holds an entry whose name matches; fs events, no polling. */
function appears(dir: string, name: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const found = () => readdirSync(dir).find((f) => name.test(f));
    const watcher = watch(dir, () => {
      const f = found();
      if (f !== undefined) (watcher.close(), resolve(f));
    });
    const f = found();
    if (f !== undefined) (watcher.close(), resolve(f));
  });
}

const cesLeftovers = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('ces-'));

function partialReport(dir: string): Report {
  const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
  expect(report.verdict).toBe('fail');
  expect(report.untested).toContainEqual({ stage: 'run', reason: expect.stringMatching(/interrupted/) });
  return report;
}

// Side by side: each run is a process with its own folder and TMPDIR, and waits on it.
describe.concurrent('a stop signal mid-run', () => {
  it.for(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    '%s: writes the partial report, removes its temp files, exits 1',
    async (signal, { expect }) => {
      const cwd = work();
      const temp = work();
      const cli = startCli(['check', '--report-dir', 'report'], { cwd, env: { TMPDIR: temp }, timeoutMs: 60_000 });
      await cli.waitFor(/^✓ pass /m);
      expect(cesLeftovers(temp)).not.toEqual([]);
      cli.child.kill(signal);
      const res = await cli.done;
      expect(res.code, res.stdout + res.stderr).toBe(1);
      expect(res.stderr).toContain(`interrupted (${signal}): finishing what is in flight and writing a partial report`);
      partialReport(join(cwd, 'report'));
      expect(cesLeftovers(temp)).toEqual([]);
    },
  );

  it.skipIf(!k6)(
    'SIGTERM while k6 runs: the partial report holds the aborted scenario, and the k6 CA bundle is gone',
    async ({ expect }) => {
      const cwd = work();
      const temp = work();
      const cli = startCli(['load', '--scenario', 'throughput', '--report-dir', 'report'], {
        cwd,
        env: { TMPDIR: temp, K6_BINARY: k6!.path },
        timeoutMs: 90_000,
      });
      // The trust bundle k6 gets for the emulator's CA: what SIGTERM used to leave behind.
      await appears(temp, /^ces-k6-ca-/);
      cli.child.kill('SIGTERM');
      const res = await cli.done;
      expect(res.code, res.stdout + res.stderr).toBe(1);
      const report = partialReport(join(cwd, 'report'));
      expect(report.load?.scenarios[0]?.error).toBe('k6 run aborted');
      expect(cesLeftovers(temp)).toEqual([]);
    },
  );
});

describe.skipIf(process.platform === 'win32')('a second stop signal', () => {
  it('quits at once with 128 + the signal, and still stops k6 and removes every temp file', async () => {
    const cwd = work();
    const temp = work();
    // A k6 that ignores SIGTERM: the first signal then waits on it, and only the second one ends
    // the run. It loads nothing; it only stands still where k6 would run.
    const stub = join(cwd, 'k6');
    const pidFile = join(cwd, 'k6.pid');
    writeFileSync(
      stub,
      `#!/bin/sh\n[ "$1" = version ] && { echo "k6 v2.2.0 (stub)"; exit 0; }\ntrap '' TERM\necho $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}"\nexec sleep 120\n`,
    );
    chmodSync(stub, 0o755);
    const cli = startCli(['load', '--scenario', 'throughput', '--report-dir', 'report'], {
      cwd,
      env: { TMPDIR: temp, K6_BINARY: stub },
      timeoutMs: 60_000,
    });
    await appears(cwd, /^k6\.pid$/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(running(pid)).toBe(true);
    cli.child.kill('SIGTERM');
    await cli.waitFor(/interrupted \(SIGTERM\)/);
    cli.child.kill('SIGTERM');
    const res = await cli.done;
    expect(res.code, res.stdout + res.stderr).toBe(128 + constants.signals.SIGTERM);
    expect(cesLeftovers(temp)).toEqual([]);
    // SIGKILLed as the CLI exited; on a loaded machine the kernel takes a moment to end it.
    expect(await goneWithin(pid, 5000)).toBe(true);
    expect(existsSync(join(cwd, 'report', 'report.json'))).toBe(false);
  });
});

/** A process that is gone or a zombie (killed, not yet reaped) no longer runs. */
/** Whether `pid` has ended (or is a zombie) within `ms`, looked at every 10 ms: a bounded wait. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 10)))
    if (!running(pid)) return true;
  return !running(pid);
}

function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
