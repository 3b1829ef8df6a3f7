// tier: real
// The kinds beyond the emulator's across a network ~100 ms away: real limiters in front of the
// emulator (its own limiter off, or its sliding-window counter with refusals that say nothing),
// behind Shopify's toxiproxy with 50 ± 10 ms each way (test/helpers/toxiproxy.ts), probed by the
// real probe as the bench probes (test/ratelimit/support.ts, no k6 proof: the closed loop across
// toxiproxy is ratelimit-network.test.ts). The virtual reproductions, ten seeds each, are
// test/ratelimit/network-kinds-virtual.test.ts. Before: HAProxy's 300 per 10 s and the silent
// counter were not identified (the ramp's pings a round trip apart) or read as a bucket up to 41 %
// slow, httprate's 200 per 10 s not identified; golang.org/x/time/rate read right. httprate 200 per
// 10 s reads here because its windows start with the front, just before the probe (at other phases
// of its window, 4 of 10 virtual seeds); httprate 50 per 1 s, read as a bucket up to 3 % slow until
// its announced resets told it (probe/reset-ticks.ts), reads at every phase of its window. The
// silent counter's first edge is put where it reads at most seeds; not identified, with the reason,
// passes too. httprate 200 per 10 s read 20.11 req/s once (CI land19: a step of its ramp miscounted,
// an acceptance the counter's slack let through taken for a lattice point): twinned, and no longer
// read so, in test/ratelimit/counter-ramp-slack-virtual.test.ts. A limit not identified because this
// machine sent the drain at under half its pace passes, said so (below).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { errorReply } from '../../src/emulator/replies.js';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { haproxyMissing, startHaproxy } from '../helpers/haproxy.js';
import { httprateMissing, provisionHttprate, startHttprate } from '../helpers/httprate.js';
import { provisionToxiproxy, startToxiproxy, toxiproxyMissing, type RunningToxiproxy } from '../helpers/toxiproxy.js';
import { describeEstimate, probe, relativeError } from '../ratelimit/support.js';

/** Each way: ~100 ms round trips, as to a service in another region. */
const LATENCY = { latencyMs: 50, jitterMs: 10 };

const missing = toxiproxyMissing() ?? haproxyMissing() ?? httprateMissing();
const skipWhy = missing !== undefined && !process.env.CI ? missing : undefined;
if (skipWhy) console.warn(`skipping the rate-limit network kinds test: ${skipWhy}`);

const counter = (limit: number, window_s: number): LimiterModel => ({
  kind: 'sliding-counter',
  limit,
  window_s,
  phase_s: 0,
  counts_refused: false,
});

/** Where the silent counter's first edge falls after the emulator starts (the probe starts within a second). */
const FIRST_EDGE_S = 7.5;

type Front = 'xrate' | 'httprate' | 'haproxy' | 'silent-counter';

const cases: Array<{
  name: string;
  front: Front;
  truth: LimiterModel;
  capS: number;
  /** Not identified (with the reason) is a right answer too: it reads at most phases of its window, not all. */
  orNotIdentified?: true;
}> = [
  {
    name: 'golang.org/x/time/rate NewLimiter(50, 10)',
    front: 'xrate',
    truth: { kind: 'bucket', rate_rps: 50, burst: 10 },
    capS: 60,
  },
  { name: 'go-chi/httprate Limit(50, 1 s)', front: 'httprate', truth: counter(50, 1), capS: 60 },
  // Two periods and a half for the 10 s windows.
  { name: 'go-chi/httprate Limit(200, 10 s)', front: 'httprate', truth: counter(200, 10), capS: 25 },
  { name: 'HAProxy http_req_rate(10000ms) 300, admitted counted', front: 'haproxy', truth: counter(300, 10), capS: 25 },
  {
    name: "the emulator's counter 300 per 10 s, its 429s silent",
    front: 'silent-counter',
    truth: counter(300, 10),
    capS: 25,
    orNotIdentified: true,
  },
];

describe.skipIf(skipWhy !== undefined)(
  `the probe across 50 ± 10 ms each way: real limiters of other kinds${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    let started: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
    let tlsDir = '';

    beforeAll(async () => {
      if (missing) throw new Error(`required on CI for the rate-limit network kinds test: ${missing}`);
      await provisionToxiproxy();
      await provisionHttprate();
    }, 360_000);
    afterEach(async () => {
      for (const s of started.reverse()) await ('stop' in s ? s.stop() : s.close());
      started = [];
      if (tlsDir) await rm(tlsDir, { recursive: true, force: true });
    });

    /** The limiter in front of the emulator, toxiproxy in front of both. */
    async function across(front: Front, truth: LimiterModel): Promise<{ url: string; emulator: Emulator }> {
      tlsDir = await mkdtemp(join(tmpdir(), 'ces-network-kinds-'));
      const emulator = await createEmulator({
        port: 0,
        tlsDir,
        ...(front === 'silent-counter'
          ? {
              // Its windows on the wall clock, the first edge about 7 s into the probe: across the
              // network it reads at about half its phases (network-kinds-virtual.test.ts sweeps
              // them), sized where the drain falls early in a window (edge 5.8–8.7 s after the start).
              limiter: { ...truth, phase_s: (Date.now() / 1000 + FIRST_EDGE_S) % 10 } as LimiterModel,
              // Silent: 429 with neither Retry-After nor any RateLimit field.
              overrides: [() => ({ rateLimited: () => errorReply(429, 'rate_limit_exceeded') })],
            }
          : { rateLimit: { rps: 0, burst: 0 } }),
      });
      started.push(emulator);
      let upstream = emulator.url;
      if (front === 'xrate' || front === 'httprate') {
        const go = await startHttprate(await provisionHttprate(), {
          upstream,
          tlsDir,
          limiter:
            front === 'xrate' || truth.kind !== 'sliding-counter'
              ? { kind: 'xrate', rate: 50, burst: 10 }
              : { kind: 'httprate', limit: truth.limit, windowS: truth.window_s },
        });
        started.push(go);
        upstream = go.url;
      } else if (front === 'haproxy') {
        const haproxy = await startHaproxy({
          upstream,
          tlsDir,
          limit: { limit: 300, periodMs: 10_000, recipe: 'admitted' },
        });
        started.push(haproxy);
        upstream = haproxy.url;
      }
      const proxy: RunningToxiproxy = await startToxiproxy(await provisionToxiproxy(), upstream, LATENCY);
      started.push(proxy);
      return { url: proxy.url, emulator };
    }

    it.each(cases)(
      '$name: its kind within 2 %, never above (or, where said, not identified)',
      async ({ name, front, truth, capS, orNotIdentified }) => {
        const { url, emulator } = await across(front, truth);
        const { estimate, seconds } = await probe(
          { url, caPem: emulator.caPem, credentials: emulator.credentials },
          { maxRps: 200, maxDurationS: capS },
        );
        const context = describeEstimate(estimate);
        console.info(
          `${name} through toxiproxy: ${estimate.sustained_rps} req/s, ${estimate.limiter?.kind} in ${seconds.toFixed(1)} s`,
        );
        if (orNotIdentified && estimate.limiter === null) {
          expect(estimate.notes.join('\n'), context).toMatch(/not identified|not pinned down|not sized/);
          return;
        }
        // This machine too busy to send at the probe's pace, as beside three other precision runs on
        // two cores (CI ci-59F: x/time/rate's drain went out at 54.6 req/s of the 200 planned, and
        // its slow clump came back whole, as a window's does): "not identified" is the honest answer
        // then, said with the drain's pace (probe/slow-sends.ts; 25 of 30 virtual seeds 20 ms late,
        // network-kinds-virtual.test.ts). Only with that pace under half the planned, as measured.
        const slow = estimate.notes.find((n) => n.includes(': the drain went out at '));
        if (slow && estimate.limiter === null) {
          expect(estimate.rate_bracket?.high, context).toBeLessThan(100);
          console.info(`${name}: not identified, this machine too busy: ${slow}`);
          return;
        }
        expect(estimate.limiter?.kind, context).toBe(truth.kind);
        expect(relativeError(estimate.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
        // A window's figure is its limit over its length: never above the truth beyond the ramp's precision.
        expect(estimate.sustained_rps!, context).toBeLessThanOrEqual(1.005 * sustainedRate(truth));
      },
      // The cap, the set-up and the stops: bounded well within.
      120_000,
    );
  },
);
