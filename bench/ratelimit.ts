// Bench 5: how well `ratelimit` identifies and sizes a limit, and what it costs. Per limiter kind
// and at two settings each: the true sustained limit, what the probe estimated, the relative
// error, the kind it identified, the requests it sent, the share refused and the seconds it took.
//   bucket   nginx limit_req (real ground truth, a leaky bucket)
//   sliding  HAProxy stick table http_req_rate(<period>), counting admitted requests only, and
//            the usual recipe that tracks every request (refused ones count)
//   fixed    rate-limiter-flexible's RateLimiterMemory keyed by client address (real ground
//            truth: a window opens at the client's first request after the last one ended), and
//            the emulator's fixed window on the clock, refusals counted
//   go       real Go limiters in a small front (test/helpers/httprate): go-chi/httprate's
//            sliding-window counter, golang.org/x/time/rate's bucket, and a bucket refilled by a
//            timer in whole batches (Envoy's token_bucket). These rows run the whole `ratelimit`
//            stage (bin/ces-harness.js: probe, recommendation, k6 proof loop), so they also say
//            the recommended rate and the last proof's 429 share (needs `node scripts/build.mjs`).
// Goal (issue 10): within 2 % on every kind, under 30 s, at most 10 % of requests refused; issue 21:
// no recommendation above the true rate, every proof holding.
// Loopback only; each probe is bounded by its own budget.
//
//   benchRateLimit()                                rows for bench/main.ts (`npm run bench`)
//   node scripts/run-ts.mjs bench/ratelimit.ts      the same, printed as a table on its own
//   node scripts/run-ts.mjs bench/ratelimit.ts go [WORD]   the Go limiters' rows only (those naming WORD)

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type Emulator } from '../src/emulator/index.js';
import { describeLimiter, type LimiterModel } from '../src/ratelimit/limiters/index.js';
import { round } from '../src/toolkit/stats.js';
import { startFlexibleLimiter } from '../test/helpers/flexible-limiter.js';
import { httprateMissing, provisionHttprate, startHttprate, type GoLimiter } from '../test/helpers/httprate.js';
import { stageRun } from './ratelimit-stage.js';
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
  /** The rate the proven policy recommends (the `ratelimit` stage's rows only). */
  recommended_rps?: number | null;
  /** The last proof round's share of 429s, percent, and whether it held. */
  proof_429_pct?: number | null;
  proof?: string;
  note?: string;
}

const MAX_RPS = 200;

export const SETTINGS = {
  nginx: [
    { rate: 25, burst: 10 },
    { rate: 50, burst: 20 },
  ],
  // And a window of 10 s for each kind a real library runs (issue 21: windows of 10 s and more).
  haproxy: [
    { limit: 50, periodMs: 1000 },
    { limit: 40, periodMs: 500 },
    { limit: 300, periodMs: 10_000 },
  ],
  fixed: [
    { limit: 50, window_s: 1 },
    { limit: 100, window_s: 2 },
  ],
  flexible: [
    { points: 50, duration: 1 },
    { points: 100, duration: 2 },
    { points: 300, duration: 10 },
  ],
  go: [
    { name: 'sliding counter: go-chi/httprate', limiter: { kind: 'httprate', limit: 50, windowS: 1 } },
    { name: 'sliding counter: go-chi/httprate', limiter: { kind: 'httprate', limit: 100, windowS: 2 } },
    { name: 'sliding counter: go-chi/httprate', limiter: { kind: 'httprate', limit: 200, windowS: 10 } },
    { name: 'bucket: golang.org/x/time/rate', limiter: { kind: 'xrate', rate: 50, burst: 10 } },
    { name: 'bucket: golang.org/x/time/rate', limiter: { kind: 'xrate', rate: 20, burst: 40 } },
    { name: 'batch bucket (Envoy token_bucket)', limiter: { kind: 'batch', rate: 50, burst: 50, fillIntervalS: 1 } },
    { name: 'batch bucket (Envoy token_bucket)', limiter: { kind: 'batch', rate: 50, burst: 100, fillIntervalS: 1 } },
    { name: 'batch bucket (Envoy token_bucket)', limiter: { kind: 'batch', rate: 50, burst: 200, fillIntervalS: 1 } },
    { name: 'batch bucket (Envoy token_bucket)', limiter: { kind: 'batch', rate: 40, burst: 40, fillIntervalS: 0.5 } },
    { name: 'batch bucket (Envoy token_bucket)', limiter: { kind: 'batch', rate: 40, burst: 80, fillIntervalS: 0.5 } },
  ],
} as const satisfies Record<string, unknown> & { go: readonly { name: string; limiter: GoLimiter }[] };

const goSetting = (l: GoLimiter): string =>
  l.kind === 'httprate'
    ? `Limit(${l.limit}, ${l.windowS} s)`
    : l.kind === 'xrate'
      ? `NewLimiter(${l.rate}, ${l.burst})`
      : `${l.rate * l.fillIntervalS} every ${l.fillIntervalS} s, max ${l.burst}`;
const goTrueRps = (l: GoLimiter): number => (l.kind === 'httprate' ? l.limit / l.windowS : l.rate);

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
  only?: { go: string },
): Promise<Row[]> {
  const rows: Row[] = [];
  if (only) return benchGoLimiters(progress, only.go);
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
  rows.push(...(await benchGoLimiters(progress)));
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

/** The real Go limiters, each behind the whole `ratelimit` stage: estimate, recommendation, proof. */
async function benchGoLimiters(progress: (message: string) => void, naming = ''): Promise<Row[]> {
  const rows: Row[] = [];
  const settings = SETTINGS.go.filter((g) => g.name.includes(naming));
  const missing = httprateMissing();
  if (missing)
    return settings.map((g) => empty(g.name, goSetting(g.limiter), goTrueRps(g.limiter), `skipped: ${missing}`));
  const binary = await provisionHttprate();
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-go-limiters-'));
  const upstream = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  try {
    for (const { name, limiter } of settings) {
      const setting = goSetting(limiter);
      progress(`ratelimit stage behind ${name} ${setting}`);
      const front = await startHttprate(binary, { upstream: upstream.url, tlsDir, limiter });
      try {
        const run = await stageRun({ url: front.url, caPem: upstream.caPem, credentials: upstream.credentials });
        if ('error' in run) {
          rows.push(empty(name, setting, goTrueRps(limiter), run.error));
          continue;
        }
        rows.push({
          ...row(name, setting, goTrueRps(limiter), run),
          recommended_rps: run.recommendedRps,
          proof_429_pct: run.proof429 === null ? null : round(run.proof429 * 100, 2),
          proof: run.proofVerdict,
        });
      } finally {
        await front.stop();
      }
    }
  } finally {
    await upstream.close();
    await rm(tlsDir, { recursive: true, force: true });
  }
  return rows;
}

/** The rows as a fixed-width table, for running this file on its own. */
export function formatRows(rows: readonly Row[]): string {
  const proven = rows.some((r) => r.proof !== undefined);
  const headers = [
    'limiter',
    'setting',
    'true',
    'estimated',
    'rel. error',
    'identified',
    'sent',
    'refused',
    'seconds',
    ...(proven ? ['recommended', 'proof 429', 'proof'] : []),
  ];
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
    ...(proven
      ? [
          r.recommended_rps == null ? '–' : `${r.recommended_rps} r/s`,
          r.proof_429_pct == null ? '–' : `${r.proof_429_pct.toFixed(2)} %`,
          r.proof ?? '–',
        ]
      : []),
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
  const only = process.argv[2] === 'go' ? { go: process.argv[3] ?? '' } : undefined;
  process.stdout.write(formatRows(await benchRateLimit(undefined, only)));
}
