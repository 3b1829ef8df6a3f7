// Bench 5, issue 21 items 7 and 3: rate-limit sizing across a network ~100 ms away, and long
// windows that announce nothing. The emulator's limiters, probed as bench/ratelimit.ts probes its
// own (test/ratelimit/support.ts: the real probe, no k6 proof; the closed loop over the network is
// test/integration/ratelimit-network.test.ts):
//   latency  bucket, fixed window and sliding log behind toxiproxy, 50 ± 10 ms each way, and nginx
//            limit_req (rate=25r/s burst=10) in front of the emulator, behind toxiproxy
//   long     fixed windows of a minute (60/min, 600/min) whose 429s carry no Retry-After and no
//            RateLimit field, with a cap of 2.5 windows (150 s), and one with too short a cap
// Goal: within 2 % (long windows: in about 2.5 periods, or "not identified" when the cap is short).
// Loopback only; each probe is bounded by its own budget.
//
//   benchRateLimitNetwork()                               rows for bench/main.ts (`npm run bench -- ratelimit`)
//   node scripts/run-ts.mjs bench/ratelimit-network.ts    the same, printed on its own

import { createEmulator } from '../src/emulator/index.js';
import { errorReply } from '../src/emulator/replies.js';
import { describeLimiter, sustainedRate, type LimiterModel } from '../src/ratelimit/limiters/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nginxMissing, startNginx } from '../test/helpers/nginx.js';
import { provisionToxiproxy, startToxiproxy, toxiproxyMissing } from '../test/helpers/toxiproxy.js';
import { probe } from '../test/ratelimit/support.js';
import { round } from '../src/toolkit/stats.js';

export interface NetworkRow {
  case: string;
  limiter: string;
  true_rps: number;
  estimated_rps: number | null;
  rel_error_pct: number | null;
  identified: string;
  requests_sent: number;
  seconds: number;
  /** The probe's time cap. */
  cap_s: number;
}

const LATENCY = { latencyMs: 50, jitterMs: 10 };
const fixed = (limit: number, window_s: number): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s,
  phase_s: 0,
  counts_refused: false,
});

const NETWORK_CASES: LimiterModel[] = [
  { kind: 'bucket', rate_rps: 50, burst: 50 },
  fixed(50, 1),
  { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
];
const LONG_CASES: Array<{ model: LimiterModel; capS: number }> = [
  { model: fixed(60, 60), capS: 150 },
  { model: fixed(600, 60), capS: 150 },
  { model: fixed(60, 60), capS: 100 },
];

/** Where the limit is: the emulator's own limiter, or nginx limit_req in front of an emulator without one. */
type Front = 'emulator' | 'nginx';

async function probeRow(
  name: string,
  model: LimiterModel,
  capS: number,
  network: boolean,
  front: Front = 'emulator',
): Promise<NetworkRow> {
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-bench-ratelimit-network-'));
  const emulator = await createEmulator({
    port: 0,
    tlsDir,
    ...(front === 'nginx' ? { rateLimit: { rps: 0, burst: 0 } } : { limiter: model }),
    // Silent: 429 with neither Retry-After nor any RateLimit field (HAProxy, many gateways).
    ...(network ? {} : { overrides: [() => ({ rateLimited: () => errorReply(429, 'rate_limit_exceeded') })] }),
  });
  const nginx =
    front === 'nginx' && model.kind === 'bucket'
      ? await startNginx({ upstream: emulator.url, tlsDir, limit: { rate: model.rate_rps, burst: model.burst } })
      : undefined;
  const upstream = nginx?.url ?? emulator.url;
  const proxy = network ? await startToxiproxy(await provisionToxiproxy(), upstream, LATENCY) : undefined;
  try {
    const run = await probe(
      { url: proxy?.url ?? upstream, caPem: emulator.caPem, credentials: emulator.credentials },
      { maxRps: 200, maxDurationS: capS },
    );
    const e = run.estimate;
    const truth = sustainedRate(model);
    return {
      case: name,
      limiter: `${front === 'nginx' ? 'nginx limit_req: ' : ''}${describeLimiter(model)}`,
      true_rps: round(truth, 2),
      estimated_rps: e.sustained_rps,
      rel_error_pct: e.sustained_rps === null ? null : round((Math.abs(e.sustained_rps - truth) / truth) * 100, 2),
      identified: e.limiter
        ? describeLimiter(e.limiter)
        : (e.notes.find((n) => n.startsWith('not identified')) ?? 'not identified').slice(0, 90),
      requests_sent: e.requests_sent,
      seconds: round(run.seconds, 1),
      cap_s: capS,
    };
  } finally {
    await proxy?.stop();
    await nginx?.stop();
    await emulator.close();
    await rm(tlsDir, { recursive: true, force: true });
  }
}

export async function benchRateLimitNetwork(
  progress: (message: string) => void = (m) => process.stderr.write(`bench: ${m}\n`),
): Promise<NetworkRow[]> {
  const rows: NetworkRow[] = [];
  const missing = toxiproxyMissing();
  for (const model of NETWORK_CASES) {
    if (missing) {
      progress(`skipped the latency rows: toxiproxy ${missing}`);
      break;
    }
    progress(`rate-limit probe across 50 ± 10 ms each way: ${describeLimiter(model)}`);
    rows.push(await probeRow('toxiproxy 50 ± 10 ms each way', model, 60, true));
  }
  const nginx = missing ?? nginxMissing();
  if (nginx) progress(`skipped the nginx latency row: ${nginx}`);
  else {
    progress('rate-limit probe across 50 ± 10 ms each way: nginx limit_req rate=25r/s burst=10');
    rows.push(
      await probeRow('toxiproxy 50 ± 10 ms each way', { kind: 'bucket', rate_rps: 25, burst: 10 }, 60, true, 'nginx'),
    );
  }
  for (const { model, capS } of LONG_CASES) {
    progress(`rate-limit probe, a silent long window: ${describeLimiter(model)}, cap ${capS} s`);
    rows.push(await probeRow('silent long window', model, capS, false));
  }
  return rows;
}

// Run on its own (scripts/run-ts.mjs sets argv[1] to the entry file), not when bench/main.ts imports it.
if (process.argv[1]?.replace(/\\/g, '/').endsWith('bench/ratelimit-network.ts')) {
  const rows = await benchRateLimitNetwork();
  process.stdout.write(JSON.stringify(rows, null, 1) + '\n');
}
