// When k6 cannot run (missing) or crashes, the run still ends with a report: the stage is recorded
// as not tested, or the scenario as "k6 crashed (exit N: meaning)", never as a crossed threshold
// (k6's exit 99, its verdict on the service). The k6 here is a stub that only exits the way a
// broken k6 does: it generates no load, it exercises the harness's own error paths.

import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';

const work = () => mkdtempSync(join(tmpdir(), 'ces-k6-failures-'));

/** A k6 that answers `version` like v2.2.0 and then fails every run with `body`. */
function brokenK6(body: string): string {
  const path = join(work(), 'k6');
  writeFileSync(path, `#!/bin/sh\n[ "$1" = version ] && { echo "k6 v2.2.0 (stub)"; exit 0; }\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;

// The two blocks side by side ({ concurrent: true }, as test/cli/load.test.ts), each test a CLI
// process of its own with its own folder and built-in emulator; within each block one test after
// another. The crash cases (a second each) take turns: five CLI start-ups at once beside the stage
// runs took 23 s each at load 22. So do the two stage runs: each sizes its emulator's limit, and two
// probes at once on two cores left one partial at load 13 (a probe's failure, not the harness's).
describe.skipIf(process.platform === 'win32')('ces-harness load when k6 crashes', { concurrent: true }, () => {
  const cases = [
    {
      exit: 107,
      body: `printf '%s\\n' 'time="2026-11-22T00:00:00Z" level=error msg="Error: boom\\n\\tat default (file:///b.js:1:1)"' >&2; exit 107`,
      error: 'k6 crashed (exit 107: the script threw): Error: boom',
    },
    {
      exit: 104,
      body: 'echo "invalid duration" >&2; exit 104',
      error: 'k6 crashed (exit 104: invalid options): invalid duration',
    },
    { exit: 108, body: 'exit 108', error: 'k6 crashed (exit 108: the script aborted the test)' },
    { exit: 255, body: 'exit 255', error: 'k6 crashed (exit 255)' },
    { exit: 'SIGKILL', body: 'kill -9 $$', error: 'k6 crashed (killed by a signal)' },
  ];

  it.sequential.for(cases)(
    'exit $exit: exit 1, the report says k6 crashed, not that a threshold failed',
    async ({ body, error }, { expect }) => {
      const cwd = work();
      const res = await runCli(['load', '--scenario', 'throughput', '--report-dir', 'report'], {
        cwd,
        env: { K6_BINARY: brokenK6(body) },
        timeoutMs: 60_000,
      });
      expect(res.code, res.stdout + res.stderr).toBe(1);
      expect(res.stdout).toContain(`✗ fail  k6 throughput`);
      expect(res.stdout).toContain(error);
      expect(res.stdout).not.toMatch(/threshold/i);
      const report = readReport(join(cwd, 'report'));
      expect(report.verdict).toBe('fail');
      expect(report.load?.ok).toBe(false);
      expect(report.load?.scenarios[0]?.error).toBe(error);
      const md = readFileSync(join(cwd, 'report', 'report.md'), 'utf8');
      expect(md).toContain('❌ 1 of 1 scenario(s) did not complete');
      expect(md).not.toContain('thresholds not met');
    },
  );
});

describe.skipIf(process.platform === 'win32')(
  'a stage that cannot run still leaves the report',
  { concurrent: true },
  () => {
    it.sequential(
      'run (npm start) without k6: every check, then load and the rate-limit proof not tested, exit 1',
      async ({ expect }) => {
        const cwd = work();
        const res = await runCli(['run', '--report-dir', 'report'], {
          cwd,
          env: { K6_BINARY: join(cwd, 'no-k6-here') },
          timeoutMs: 180_000,
        });
        expect(res.code, res.stdout + res.stderr).toBe(1);
        const report = readReport(join(cwd, 'report'));
        expect(report.summary.passed).toBeGreaterThan(30);
        const why = /^K6_BINARY: .*no-k6-here does not exist or is not executable; unset K6_BINARY or run `npm ci`/;
        expect(report.untested).toEqual([
          { stage: 'load', reason: expect.stringMatching(why) },
          {
            stage: 'rate_limit',
            reason: expect.stringMatching(/^proof not run: K6_BINARY: .*no-k6-here does not exist/),
          },
        ]);
        // One line each on the terminal, as the stage gave up.
        expect(res.stderr).toMatch(/^load: not tested: K6_BINARY: [^\n]*$/m);
        expect(res.stderr).toMatch(/^rate_limit: not tested: proof not run: K6_BINARY: [^\n]*$/m);
      },
      240_000,
    );

    it.sequential(
      'ratelimit with a crashing k6: the estimate stands, the proof is recorded as not tested',
      async ({ expect }) => {
        const cwd = work();
        const k6 = brokenK6('exit 107');
        const res = await runCli(['ratelimit', '--report-dir', 'report'], {
          cwd,
          env: { K6_BINARY: k6 },
          timeoutMs: 120_000,
        });
        expect(res.code, res.stdout + res.stderr).toBe(1);
        const report = readReport(join(cwd, 'report'));
        const crashed = {
          stage: 'rate_limit',
          reason: 'proof run did not complete: k6 crashed (exit 107: the script threw)',
        };
        // What the run printed, so that a failure shows what the probe read.
        const out = res.stdout + res.stderr;
        expect(report.rate_limit?.proof, out).toBeNull();
        if (report.rate_limit?.limiter) {
          // The probe identified the emulator's bucket: its recommendation stands, only the proof is not tested.
          expect(report.rate_limit.recommendation, out).not.toBeNull();
          expect(report.untested, out).toEqual([crashed]);
        } else {
          // On a loaded runner the probe may leave it unidentified (CI land89, four heavy files beside
          // it): then the search's rounds are what k6 could not run, so nothing is recommended (a
          // search's first rate is a guess), and the report says why beside the crash.
          expect(report.rate_limit?.recommendation ?? null, out).toBeNull();
          expect(report.untested, out).toEqual(
            expect.arrayContaining([crashed, { stage: 'rate_limit', reason: expect.stringMatching(/identif/) }]),
          );
        }
      },
      180_000,
    );
  },
);
