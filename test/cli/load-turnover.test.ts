// `load` against a conformant service passes at any token lifetime of 10 s or more: tokens turning
// over mid-scenario are normal life, and the rate-limit spike is one a correct client survives.
// And the other side of that line: a service that refuses tokens before their expires_at fails.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli.js';
import { realK6 } from '../k6/support.js';

const k6 = await realK6();
const work = () => mkdtempSync(join(tmpdir(), 'ces-turnover-'));
const K6_ENV = k6 ? { K6_BINARY: k6.path } : {};

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
/**
 * Per scenario, the last second (from its first request) in which it made calls: past a token's
 * lifetime, every token it started with had expired under its calls. A 401 at the turn
 * (token_turnovers) is chance, not proof: the cache drops a token at its expires_at, so only a call
 * in flight across that instant meets one (0 in one of six real-tier runs, 2026-11-30).
 */
const lastBusySecond = (report: Report) =>
  Object.fromEntries(
    report.load!.scenarios.map((s) => [
      s.scenario,
      Math.max(-1, ...(s.timeline ?? []).filter((p) => p.requests > 0).map((p) => p.t)),
    ]),
  );
const failed = (report: Report) =>
  report.load!.scenarios.flatMap((s) =>
    s.thresholds.filter((t) => !t.ok).map((t) => `${s.scenario}: ${t.metric} ${t.expression}`),
  );

describe.skipIf(!k6)('load while tokens turn over', () => {
  const started: RunningCli[] = [];
  afterAll(async () => {
    for (const s of started) {
      s.child.kill('SIGTERM');
      await s.done;
    }
  });

  // Each run has its own emulator and k6, and k6 paces by the clock, not by free CPU: side by side
  // (measured beside cutover.test.ts on 2 cores) each takes as long as alone and meets its thresholds.

  // The issue's own steps: `serve --token-ttl 30` in one terminal, `load --token-lifetime 30` against it.
  it.concurrent(
    'passes against `serve --token-ttl 30` with load --token-lifetime 30 and defaults otherwise',
    async () => {
      const serve = startCli(['serve', '--token-ttl', '30', '--port', '0'], { timeoutMs: 240_000 });
      started.push(serve);
      await serve.waitFor(/"base_url".*\n/);
      const line = JSON.parse(serve.stdout().split('\n')[0]!) as Record<string, string>;
      const dir = join(work(), 'report');
      const res = await runCli(
        [
          'load',
          '--token-lifetime',
          '30',
          '--base-url',
          line['base_url']!,
          '--ca',
          line['ca_file']!,
          '--report-dir',
          dir,
        ],
        {
          cwd: work(),
          env: { ...K6_ENV, CES_CLIENT_ID: line['client_id']!, CES_CLIENT_SECRET: line['client_secret']! },
          timeoutMs: 200_000,
        },
      );
      expect(res.code, res.stdout + res.stderr).toBe(0);
      expect(failed(readReport(dir))).toEqual([]);
    },
    240_000,
  );

  it.concurrent(
    'passes with tokens of 10 s, which turn over mid-scenario',
    async () => {
      const dir = join(work(), 'report');
      // Each scenario runs 12 s, longer than a token lives: a turnover under its calls is certain, not
      // left to when k6 happened to start (at the default 5 s it showed none once in two real-tier runs).
      const res = await runCli(['load', '--token-lifetime', '10', '--duration', '12', '--report-dir', dir], {
        cwd: work(),
        env: K6_ENV,
        timeoutMs: 200_000,
      });
      expect(res.code, res.stdout + res.stderr).toBe(0);
      const report = readReport(dir);
      expect(failed(report)).toEqual([]);
      // Proof that turnover really happened under the calls, rather than the run dodging it: every
      // scenario still made calls after 10 s, past the life of any token it began with, crossing no threshold (above).
      const busy = lastBusySecond(report);
      expect(
        Object.values(busy).every((t) => t >= 10),
        JSON.stringify(busy),
      ).toBe(true);
    },
    240_000,
  );

  it.concurrent(
    'fails when the service refuses tokens well before their expires_at (expires-early)',
    async () => {
      const dir = join(work(), 'report');
      const res = await runCli(
        ['load', '--token-lifetime', '10', '--scenario', 'throughput', '--fault', 'expires-early', '--report-dir', dir],
        {
          cwd: work(),
          env: K6_ENV,
          timeoutMs: 120_000,
        },
      );
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/✗ fail\s+k6 throughput .*thresholds failed: .*token_refused_before_expiry count==0/);
    },
    180_000,
  );
});
