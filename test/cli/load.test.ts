// `ces-harness load` and `run` as a user meets them: the real k6 against the built-in emulator.

import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { runCli } from '../helpers/cli.js';
import { realK6 } from '../k6/support.js';
import { expectValidReport } from '../report/schema.js';

const k6 = await realK6();
const work = () => mkdtempSync(join(tmpdir(), 'ces-load-'));
const K6_ENV = k6 ? { K6_BINARY: k6.path } : {};

// Both blocks side by side too ({ concurrent: true }): `run` below has its own emulator and k6 runs.
describe.skipIf(!k6)('ces-harness load against the built-in emulator', { concurrent: true }, () => {
  // Each k6 run has its own emulator and paces by the clock: side by side, each takes as long as alone.
  it.concurrent(
    'exits 0 with all four scenarios in the report, and k6 dashboard exports beside it',
    async () => {
      const dir = join(work(), 'report');
      // 5 s per scenario, as `run` has them: what this proves (the four scenarios, their exports, the
      // timeline, the report files) does not grow with the run; load-turnover.test.ts runs `load`
      // with its default 10 s.
      const res = await runCli(['load', '--duration', '5', '--report-dir', dir], {
        cwd: work(),
        env: K6_ENV,
        timeoutMs: 240_000,
      });
      expect(res.code, res.stdout + res.stderr).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      expect(report.load?.scenarios.map((s) => s.scenario).sort()).toEqual([
        'rate-limit',
        'throughput',
        'tls',
        'token-lifecycle',
      ]);
      expect(report.load?.ok).toBe(true);
      expect(report.verdict).toBe('pass');
      for (const s of report.load!.scenarios) expect(s.requests).toBeGreaterThan(0);
      const exports = readdirSync(dir).filter((f) => f.startsWith('k6-dashboard-'));
      expect(exports.length).toBeGreaterThanOrEqual(4);
      // report.html links every export k6 wrote, and every link opens a file beside it.
      const html = readFileSync(join(dir, 'report.html'), 'utf8');
      const linked = [...html.matchAll(/<a href="(k6-dashboard-[^"]+)">/g)].map((m) => m[1]);
      expect(linked.sort()).toEqual(exports.sort());
      expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('**k6 web dashboards**');
      // k6's samples became the per-second timeline, so the requests-over-time chart is drawn.
      // (tls is two k6 runs; its timeline is the first's, without the TLS 1.2 probe's few requests.)
      for (const s of report.load!.scenarios) {
        const charted = s.timeline?.reduce((n, p) => n + p.requests, 0) ?? 0;
        if (s.scenario === 'tls') expect(charted).toBeGreaterThan(0);
        else expect(charted, s.scenario).toBe(s.requests);
        expect(charted).toBeLessThanOrEqual(s.requests);
      }
      expect(html).toContain('<svg class="chart" id="chart-rate"');
      const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
      expect(junit).toContain('<testsuite name="load"');
    },
    300_000,
  );

  it.concurrent(
    'exits 1 naming the failed threshold when the emulator rotates tokens',
    async () => {
      const dir = join(work(), 'report');
      const res = await runCli(
        ['load', '--scenario', 'token-lifecycle', '--fault', 'token-rotates', '--report-dir', dir],
        { cwd: work(), env: K6_ENV, timeoutMs: 120_000 },
      );
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/✗ fail\s+k6 token-lifecycle .*thresholds failed: .*token_changed_before_expiry/);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
      expect(report.verdict).toBe('fail');
      expect(report.load?.scenarios[0]?.thresholds.some((t) => !t.ok)).toBe(true);
    },
    180_000,
  );

  it('an unknown scenario is a usage error before anything starts', async () => {
    const res = await runCli(['load', '--scenario', 'soak'], { cwd: work(), env: K6_ENV });
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(
      /^ces-harness: unknown scenario soak; known: token-lifecycle, tls, rate-limit, throughput$/,
    );
  });
});

describe.skipIf(!k6)('ces-harness run (npm start) against the built-in emulator', { concurrent: true }, () => {
  it('runs checks and a short load, exits 0 and writes the four report files', async () => {
    const cwd = work();
    const res = await runCli(['run'], { cwd, env: K6_ENV, timeoutMs: 240_000 });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const folder = /^report: (.+)$/m.exec(res.stdout)?.[1];
    expect(folder).toMatch(/reports\/\d{8}T\d{6}Z-sandbox$/);
    for (const f of ['report.json', 'report.md', 'junit.xml', 'report.html']) expect(readdirSync(folder!)).toContain(f);
    const report = JSON.parse(readFileSync(join(folder!, 'report.json'), 'utf8')) as Report;
    expect(report.summary.failed).toBe(0);
    expect(report.checks.find((c) => c.id === 'token.expired-validate-401')?.status).toBe('pass');
    expect(report.load?.scenarios.length).toBe(4);
    expectValidReport(report);
  }, 300_000);
});
