// Bench 5: how well `ratelimit` finds a limit, and what it costs. Per setting, the configured rate
// and burst, what the probe estimated, the relative error, the requests it sent and had refused,
// and the seconds it took: behind nginx's limit_req (real ground truth, a leaky bucket) and against
// the emulator's token bucket. Loopback only; each probe is bounded by its own budget.
//
//   benchRateLimit()                         rows for bench/main.ts (`npm run bench`)
//   node scripts/run-ts.mjs bench/ratelimit.ts   the same, printed as a table on its own

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '../src/emulator/index.js';
import { nginxMissing, startNginx } from '../test/helpers/nginx.js';
import { probe, type ProbeRun } from '../test/ratelimit/support.js';

export interface Row {
  limiter: 'nginx limit_req' | 'emulator bucket';
  configured_rps: number;
  configured_burst: number;
  estimated_rps: number | null;
  /** |estimated − configured| / configured, in percent. */
  rel_error_pct: number | null;
  estimated_burst: number | null;
  requests_sent: number;
  requests_limited: number;
  seconds: number;
  /** Why the row has no figures, when it has none. */
  note?: string;
}

export const NGINX_SETTINGS = [
  { rate: 10, burst: 5 },
  { rate: 25, burst: 10 },
  { rate: 50, burst: 20 },
] as const;

export const EMULATOR_SETTINGS = [
  { rps: 10, burst: 5 },
  { rps: 50, burst: 50 },
  { rps: 100, burst: 20 },
] as const;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function row(limiter: Row['limiter'], rps: number, burst: number, run: ProbeRun): Row {
  const e = run.estimate;
  return {
    limiter,
    configured_rps: rps,
    configured_burst: burst,
    estimated_rps: e.sustained_rps,
    rel_error_pct: e.sustained_rps === null ? null : round((Math.abs(e.sustained_rps - rps) / rps) * 100, 2),
    estimated_burst: e.burst,
    requests_sent: e.requests_sent,
    requests_limited: e.requests_limited,
    seconds: round(run.seconds, 1),
  };
}

const empty = (limiter: Row['limiter'], rps: number, burst: number, note: string): Row => ({
  limiter,
  configured_rps: rps,
  configured_burst: burst,
  estimated_rps: null,
  rel_error_pct: null,
  estimated_burst: null,
  requests_sent: 0,
  requests_limited: 0,
  seconds: 0,
  note,
});

export async function benchRateLimit(progress: (message: string) => void = (m) => process.stderr.write(`bench: ${m}\n`)): Promise<Row[]> {
  const rows: Row[] = [];
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-ratelimit-'));
  // The upstream for nginx: the emulator with its own limiter off, so nginx alone limits.
  const upstream = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  try {
    const missing = nginxMissing();
    for (const { rate, burst } of NGINX_SETTINGS) {
      if (missing) {
        rows.push(empty('nginx limit_req', rate, burst, `skipped: ${missing}`));
        continue;
      }
      progress(`rate-limit probe behind nginx limit_req rate=${rate}r/s burst=${burst}`);
      const nginx = await startNginx({ upstream: upstream.url, tlsDir, limit: { rate, burst } });
      try {
        rows.push(row('nginx limit_req', rate, burst, await probe({ url: nginx.url, caPem: upstream.caPem, credentials: upstream.credentials })));
      } finally {
        await nginx.stop();
      }
    }
  } finally {
    await upstream.close();
    await rm(tlsDir, { recursive: true, force: true });
  }
  for (const { rps, burst } of EMULATOR_SETTINGS) {
    progress(`rate-limit probe against the emulator bucket ${rps}/s burst ${burst}`);
    const emulator = await createEmulator({ port: 0, rateLimit: { rps, burst } });
    try {
      rows.push(row('emulator bucket', rps, burst, await probe({ url: emulator.url, caPem: emulator.caPem, credentials: emulator.credentials })));
    } finally {
      await emulator.close();
    }
  }
  return rows;
}

/** The rows as a fixed-width table, for running this file on its own. */
export function formatRows(rows: readonly Row[]): string {
  const headers = ['limiter', 'configured', 'estimated', 'rel. error', 'burst (est.)', 'sent', 'limited', 'seconds'];
  const cells = rows.map((r) => [
    r.limiter,
    `${r.configured_rps} r/s, burst ${r.configured_burst}`,
    r.note ?? (r.estimated_rps === null ? '–' : `${r.estimated_rps.toFixed(2)} r/s`),
    r.rel_error_pct === null ? '–' : `${r.rel_error_pct.toFixed(2)} %`,
    r.estimated_burst === null ? '–' : String(r.estimated_burst),
    String(r.requests_sent),
    String(r.requests_limited),
    r.seconds.toFixed(1),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when bench/main.ts imports it.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/ratelimit.ts')) {
  process.stdout.write(formatRows(await benchRateLimit()));
}
