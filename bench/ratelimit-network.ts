// Bench 5, issue 21 items 7 and 3: rate-limit sizing across a network ~100 ms away, and long
// windows that announce nothing. The rows of bench/ratelimit.ts (each runs the whole `ratelimit`
// stage: probe, recommendation and k6 proof) whose limiter is the emulator's own, or nginx:
//   network  bucket, fixed window, sliding log and a silent 10 s counter behind toxiproxy, 50 ± 10
//            ms each way, and nginx limit_req (rate=25r/s burst=10) in front of the emulator, behind
//            toxiproxy; the k6 proof crosses toxiproxy too (bench/ratelimit.ts adds the Go limiters
//            and HAProxy's 10 s counter behind it, `acrossNetwork`)
//   silent   fixed windows of a minute (60/min, 600/min) whose 429s carry no Retry-After and no
//            RateLimit field, with a cap of 2.5 windows (150 s), and one with a short cap (100 s,
//            under two windows: "not identified" is a right reading there, and misses the goal)
// Run alone: node scripts/run-ts.mjs bench/ratelimit.ts network|silent

import { errorReply } from '../src/emulator/replies.js';
import type { LimiterModel } from '../src/ratelimit/limiters/index.js';
import { nginxMissing, startNginx } from '../test/helpers/nginx.js';
import { toxiproxyMissing } from '../test/helpers/toxiproxy.js';
import { emulatorRow, refillOf, type RowSpec } from './ratelimit-stack.js';

const LATENCY = { latencyMs: 50, jitterMs: 10 };
const ACROSS = 'toxiproxy 50 ± 10 ms each way';

/** A real limiter's row moved behind toxiproxy, with a cap of its own (2.5 periods for a 10 s window). */
export const acrossNetwork = (row: RowSpec, cap_s: number): RowSpec => ({
  ...row,
  group: 'network',
  setting: `${row.setting}, ${ACROSS}`,
  cap_s,
  missing: () => toxiproxyMissing() ?? row.missing?.(),
  stack: { ...row.stack, latency: LATENCY },
});
const fixed = (limit: number, window_s: number): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s,
  phase_s: 0,
  counts_refused: false,
});

// Silent: 429 with neither Retry-After nor any RateLimit field (HAProxy, many gateways).
const silent = () => ({ rateLimited: () => errorReply(429, 'rate_limit_exceeded') });

export const NETWORK_ROWS: RowSpec[] = [
  ...[
    { kind: 'bucket', rate_rps: 50, burst: 50 } as const,
    fixed(50, 1),
    { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false } as const,
  ].map((model): RowSpec => ({
    ...emulatorRow('network', model, ACROSS, 60, { latency: LATENCY }),
    missing: toxiproxyMissing,
  })),
  {
    group: 'network',
    limiter: 'bucket: nginx limit_req',
    setting: `rate=25r/s burst=10, ${ACROSS}`,
    true_rps: 25,
    window_s: null,
    refill_s: refillOf(25, 10),
    cap_s: 60,
    missing: () => toxiproxyMissing() ?? nginxMissing(),
    stack: {
      front: (upstream, tlsDir) => startNginx({ upstream, tlsDir, limit: { rate: 25, burst: 10 } }),
      latency: LATENCY,
    },
  },
  // A sliding-window counter whose 429s announce nothing, across the network (its windows on the
  // emulator's clock from its start).
  emulatorRow(
    'network',
    { kind: 'sliding-counter', limit: 300, window_s: 10, phase_s: 0, counts_refused: false },
    `silent 429s, ${ACROSS}`,
    25,
    { emulator: { overrides: [silent] }, latency: LATENCY },
  ),
  ...[
    { model: fixed(60, 60), capS: 150 },
    { model: fixed(600, 60), capS: 150 },
    { model: fixed(60, 60), capS: 100 },
  ].map(({ model, capS }) =>
    emulatorRow('silent', model, `silent 429s, cap ${capS} s`, capS, {
      emulator: { overrides: [silent] },
    }),
  ),
];
