// tier: real
// Real Go limiters as ground truth, each in a small Go front (test/helpers/httprate) before the
// emulator (its own limiter off), keyed by client address: go-chi/httprate v0.16.1's sliding-window
// counter at two settings and golang.org/x/time/rate's bucket at two. The probe must read the
// kind, the rate within 2 % (and a counter's window), the burst within one request, and end by
// itself. Precision tests against real limiters in real time (7–22 s each): the slow tier. Skipped
// only where Go is missing to build the front. The front's third limiter, a bucket refilled by a
// timer in whole batches (Envoy's token_bucket), with room for two batches and for four: the
// timer-refilled bucket, its interval within 2 % too (probe/batch-staircase.ts; 16–25 s each).
// And Traefik's rateLimit middleware, a bucket that holds a request briefly before it refuses.
//
// httprate's windows start when the process started (its windowOffset), so the probe's drain falls
// just after an edge: a window that slides from the drain would let the client back a window
// later, just as this one does. Before, period trials from idle timed its next edge and read a
// sliding log 50 per 0.80–0.84 s (+19 to +24 %); it announces X-RateLimit-Reset, so the probe now
// sizes it by the stream and tells it by drains from idle (src/ratelimit/probe/counter-edge.ts).
// The stream at a quarter over the limit refuses most of what it costs: up to a fifth refused.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { burstSize, sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { httprateMissing, provisionHttprate, startHttprate, type GoLimiter } from '../helpers/httprate.js';
import { describeEstimate, probe, relativeError } from './support.js';

const missing = httprateMissing();

interface Case {
  name: string;
  limiter: GoLimiter;
  /** What the probe must read: the kind, the rate, the burst; a counter's window and a batch bucket's interval too. */
  truth: LimiterModel;
  maxRefused: number;
}

const CASES: Case[] = [
  {
    name: 'httprate.Limit(50, 1 s)',
    limiter: { kind: 'httprate', limit: 50, windowS: 1 },
    truth: { kind: 'sliding-counter', limit: 50, window_s: 1, phase_s: 0, counts_refused: false },
    maxRefused: 0.25,
  },
  {
    name: 'httprate.Limit(100, 2 s)',
    limiter: { kind: 'httprate', limit: 100, windowS: 2 },
    truth: { kind: 'sliding-counter', limit: 100, window_s: 2, phase_s: 0, counts_refused: false },
    maxRefused: 0.25,
  },
  {
    name: 'rate.NewLimiter(50, 10)',
    limiter: { kind: 'xrate', rate: 50, burst: 10 },
    truth: { kind: 'bucket', rate_rps: 50, burst: 10 },
    maxRefused: 0.1,
  },
  {
    name: 'rate.NewLimiter(20, 40)',
    limiter: { kind: 'xrate', rate: 20, burst: 40 },
    truth: { kind: 'bucket', rate_rps: 20, burst: 40 },
    maxRefused: 0.1,
  },
  // Traefik's rateLimit: x/time/rate's bucket that holds a request up to half a token's interval
  // (10 ms here) before it refuses, with Retry-After: still a bucket to a client.
  {
    name: "Traefik's rateLimit average=50 burst=100",
    limiter: { kind: 'traefik', rate: 50, burst: 100 },
    truth: { kind: 'bucket', rate_rps: 50, burst: 100 },
    maxRefused: 0.1,
  },
  ...[100, 200].map((burst): Case => ({
    name: `batch bucket 50 every 1 s, max ${burst}`,
    limiter: { kind: 'batch', rate: 50, burst, fillIntervalS: 1 },
    truth: { kind: 'bucket', rate_rps: 50, burst, fill_interval_s: 1 },
    maxRefused: 0.1,
  })),
];

describe.skipIf(missing !== undefined)(
  `limiter identification behind real Go limiters${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let emulator: Emulator;
    let tlsDir: string;
    let binary: string;

    beforeAll(async () => {
      binary = await provisionHttprate();
      tlsDir = await mkdtemp(join(tmpdir(), 'ces-httprate-tls-'));
      emulator = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
    }, 300_000);
    afterAll(async () => {
      await emulator?.close();
      if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
    });

    it.each(CASES)(
      '$name: the kind, the rate within 2 %, the burst within one request',
      async ({ name, limiter, truth, maxRefused }) => {
        const front = await startHttprate(binary, { upstream: emulator.url, tlsDir, limiter });
        try {
          const { estimate: e, seconds } = await probe(
            { url: front.url, caPem: emulator.caPem, credentials: emulator.credentials },
            { maxRps: 200, maxDurationS: 60 },
          );
          const context = describeEstimate(e);
          console.log(
            `${name} → ${JSON.stringify(e.limiter)}: ${e.sustained_rps} r/s, burst ${e.burst}, ${e.requests_sent} sent, ${e.requests_limited} refused, ${Math.round(seconds)} s`,
          );
          expect(e.limiter?.kind, context).toBe(truth.kind);
          expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
          expect(Math.abs((e.burst ?? 0) - burstSize(truth)), context).toBeLessThanOrEqual(1);
          if (truth.kind === 'bucket' && truth.fill_interval_s !== undefined)
            expect(
              relativeError(
                e.limiter?.kind === 'bucket' ? (e.limiter.fill_interval_s ?? null) : null,
                truth.fill_interval_s,
              ),
              context,
            ).toBeLessThanOrEqual(0.02);
          if (truth.kind === 'sliding-counter' && e.limiter?.kind === 'sliding-counter')
            expect(relativeError(e.limiter.window_s, truth.window_s), context).toBeLessThanOrEqual(0.02);
          expect(e.partial, context).toBe(false);
          expect(e.requests_limited / e.requests_sent, context).toBeLessThanOrEqual(maxRefused);
        } finally {
          await front.stop();
        }
      },
      90_000,
    );
  },
);
