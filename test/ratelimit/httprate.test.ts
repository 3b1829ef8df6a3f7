// tier: real
// Real ground truth for the sliding-window counter: go-chi/httprate v0.16.1's httprate.Limit in a
// small Go front (test/helpers/httprate) before the emulator (its own limiter off), keyed by client
// address, at two settings. The probe must read a sliding-window counter, its limit exactly and its
// window and rate within 2 %, and end by itself. A precision test against a real limiter in real
// time (7–16 s a setting): the slow tier. Skipped only where Go is missing to build the front.
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
import { httprateMissing, provisionHttprate, startHttprate } from '../helpers/httprate.js';
import { describeEstimate, probe, relativeError } from './support.js';

const missing = httprateMissing();

const SETTINGS = [
  { limit: 50, windowS: 1 },
  { limit: 100, windowS: 2 },
];

describe.skipIf(missing !== undefined)(
  `limiter identification behind go-chi/httprate${missing ? ` (skipped: ${missing})` : ''}`,
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

    it.each(SETTINGS)(
      'reads $limit per $windowS s: a sliding-window counter, its window within 2 %',
      async ({ limit, windowS }) => {
        const front = await startHttprate(binary, {
          upstream: emulator.url,
          tlsDir,
          limiter: { kind: 'httprate', limit, windowS },
        });
        try {
          const { estimate, seconds } = await probe(
            { url: front.url, caPem: emulator.caPem, credentials: emulator.credentials },
            { maxRps: 200, maxDurationS: 60 },
          );
          const context = describeEstimate(estimate);
          console.log(
            `httprate ${limit} per ${windowS} s → ${JSON.stringify(estimate.limiter)}: ${estimate.sustained_rps} r/s, ${estimate.requests_sent} sent, ${estimate.requests_limited} refused, ${Math.round(seconds)} s`,
          );
          expect(estimate.limiter?.kind, context).toBe('sliding-counter');
          if (estimate.limiter?.kind === 'sliding-counter') {
            expect(estimate.limiter.limit, context).toBe(limit);
            expect(relativeError(estimate.limiter.window_s, windowS), context).toBeLessThanOrEqual(0.02);
          }
          expect(relativeError(estimate.sustained_rps, limit / windowS), context).toBeLessThanOrEqual(0.02);
          expect(estimate.partial, context).toBe(false);
          expect(estimate.requests_limited / estimate.requests_sent, context).toBeLessThanOrEqual(0.25);
        } finally {
          await front.stop();
        }
      },
      90_000,
    );
  },
);
