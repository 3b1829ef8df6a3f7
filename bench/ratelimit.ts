// Bench 5: how well `ratelimit` identifies and sizes a limit, and what it costs. Per limiter kind
// and at two settings each: the true sustained limit, what the probe estimated, the relative
// error, the kind it identified, the requests it sent, the share refused and the seconds it took.
//   bucket   nginx limit_req (real ground truth, a leaky bucket)
//   sliding  HAProxy stick table http_req_rate(<period>), counting admitted requests only, and
//            the usual recipe that tracks every request (refused ones count)
//   fixed    rate-limiter-flexible's RateLimiterMemory keyed by client address (real ground
//            truth: a window opens at the client's first request after the last one ended), and
//            the emulator's fixed window on the clock, refusals counted
// Goal (issue 10): within 2 % on every kind, under 30 s, at most 10 % of requests refused.
// Loopback only; each probe is bounded by its own budget.
//
//   benchRateLimit()                             rows for bench/main.ts (`npm run bench`)
//   node scripts/run-ts.mjs bench/ratelimit.ts   the same, printed as a table on its own

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type Emulator } from '../src/emulator/index.js';
import { describeLimiter, type LimiterModel } from '../src/ratelimit/limiters/index.js';
import { round } from '../src/toolkit/stats.js';
import { startFlexibleLimiter } from '../test/helpers/flexible-limiter.js';
import { haproxyMissing, startHaproxy } from '../test/helpers/haproxy.js';
import { nginxMissing, startNginx } from '../test/helpers/nginx.js';
import { probe, type ProbeRun } from '../test/ratelimit/support.js';

export interface Row {
  limiter: string;
  setting: string;
  true_rps: number;
  estimated_rps: number | null;
  /** |estimated − true| / true, in percent. */
  rel_error_pct: number | null;
  identified: string;
  requests_sent: number;
  refused_pct: number;
  seconds: number;
  note?: string;
}

const MAX_RPS = 200;

export const SETTINGS = {
  nginx: [
    { rate: 25, burst: 10 },
    { rate: 50, burst: 20 },
  ],
  haproxy: [
    { limit: 50, periodMs: 1000 },
    { limit: 40, periodMs: 500 },
  ],
  fixed: [
    { limit: 50, window_s: 1 },
    { limit: 100, window_s: 2 },
  ],
  flexible: [
    { points: 50, duration: 1 },
    { points: 100, duration: 2 },
  ],
} as const;

function row(limiter: string, setting: string, trueRps: number, run: ProbeRun): Row {
  const e = run.estimate;
  return {
    limiter,
    setting,
    true_rps: trueRps,
    estimated_rps: e.sustained_rps,
    rel_error_pct: e.sustained_rps === null ? null : round((Math.abs(e.sustained_rps - trueRps) / trueRps) * 100, 2),
    identified: e.limiter ? describeLimiter(e.limiter as LimiterModel) : 'not identified',
    requests_sent: e.requests_sent,
    refused_pct: e.requests_sent > 0 ? round((e.requests_limited / e.requests_sent) * 100, 1) : 0,
    seconds: round(run.seconds, 1),
  };
}

const empty = (limiter: string, setting: string, trueRps: number, note: string): Row => ({
  limiter,
  setting,
  true_rps: trueRps,
  estimated_rps: null,
  rel_error_pct: null,
  identified: '–',
  requests_sent: 0,
  refused_pct: 0,
  seconds: 0,
  note,
});

export async function benchRateLimit(
  progress: (message: string) => void = (m) => process.stderr.write(`bench: ${m}\n`),
): Promise<Row[]> {
  const rows: Row[] = [];
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-ratelimit-'));
  // The upstream for nginx and HAProxy: the emulator with its own limiter off, so they alone limit.
  const upstream = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  const target = (url: string) => ({ url, caPem: upstream.caPem, credentials: upstream.credentials });
  try {
    for (const { rate, burst } of SETTINGS.nginx) {
      const setting = `rate=${rate}r/s burst=${burst}`;
      const missing = nginxMissing();
      if (missing) {
        rows.push(empty('bucket: nginx limit_req', setting, rate, `skipped: ${missing}`));
        continue;
      }
      progress(`rate-limit probe behind nginx limit_req ${setting}`);
      const nginx = await startNginx({ upstream: upstream.url, tlsDir, limit: { rate, burst } });
      try {
        rows.push(row('bucket: nginx limit_req', setting, rate, await probe(target(nginx.url), { maxRps: MAX_RPS })));
      } finally {
        await nginx.stop();
      }
    }
    for (const recipe of ['admitted', 'every'] as const) {
      const name = `sliding: HAProxy, ${recipe === 'every' ? 'every request counted' : 'admitted counted'}`;
      for (const { limit, periodMs } of SETTINGS.haproxy) {
        const setting = `http_req_rate(${periodMs}ms) ${limit}`;
        const trueRps = limit / (periodMs / 1000);
        const missing = haproxyMissing();
        if (missing) {
          rows.push(empty(name, setting, trueRps, `skipped: ${missing}`));
          continue;
        }
        progress(`rate-limit probe behind HAProxy ${setting}, ${recipe}`);
        const haproxy = await startHaproxy({ upstream: upstream.url, tlsDir, limit: { limit, periodMs, recipe } });
        try {
          rows.push(
            row(name, setting, trueRps, await probe(target(haproxy.url), { maxRps: MAX_RPS, maxDurationS: 60 })),
          );
        } finally {
          await haproxy.stop();
        }
      }
    }
    for (const { points, duration } of SETTINGS.flexible) {
      const setting = `RateLimiterMemory ${points} per ${duration} s`;
      progress(`rate-limit probe behind rate-limiter-flexible ${setting}`);
      const front = await startFlexibleLimiter({ upstream: upstream.url, tlsDir, limit: { points, duration } });
      try {
        rows.push(
          row(
            'fixed: rate-limiter-flexible',
            setting,
            points / duration,
            await probe(target(front.url), { maxRps: MAX_RPS, maxDurationS: 60 }),
          ),
        );
      } finally {
        await front.stop();
      }
    }
  } finally {
    await upstream.close();
    await rm(tlsDir, { recursive: true, force: true });
  }
  for (const { limit, window_s } of SETTINGS.fixed) {
    const setting = `${limit} per ${window_s} s, refusals counted`;
    progress(`rate-limit probe against the emulator's fixed window ${setting}`);
    let emulator: Emulator | undefined;
    try {
      emulator = await createEmulator({
        port: 0,
        limiter: { kind: 'fixed-window', limit, window_s, phase_s: 0, counts_refused: true },
      });
      rows.push(
        row(
          'fixed: emulator',
          setting,
          limit / window_s,
          await probe(
            { url: emulator.url, caPem: emulator.caPem, credentials: emulator.credentials },
            { maxRps: MAX_RPS },
          ),
        ),
      );
    } finally {
      await emulator?.close();
    }
  }
  return rows;
}

/** The rows as a fixed-width table, for running this file on its own. */
export function formatRows(rows: readonly Row[]): string {
  const headers = ['limiter', 'setting', 'true', 'estimated', 'rel. error', 'identified', 'sent', 'refused', 'seconds'];
  const cells = rows.map((r) => [
    r.limiter,
    r.setting,
    `${r.true_rps} r/s`,
    r.note ?? (r.estimated_rps === null ? '–' : `${r.estimated_rps.toFixed(2)} r/s`),
    r.rel_error_pct === null ? '–' : `${r.rel_error_pct.toFixed(2)} %`,
    r.identified,
    String(r.requests_sent),
    `${r.refused_pct.toFixed(1)} %`,
    r.seconds.toFixed(1),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when bench/main.ts imports it.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/ratelimit.ts')) {
  process.stdout.write(formatRows(await benchRateLimit()));
}
