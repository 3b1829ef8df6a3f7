// A bucket in front of a fixed window (issue 35's stacked bench row: a bucket of 100 per second,
// burst 100, before a window of 200 per 10 s on the clock; 20 req/s sustained). The drain at
// 200 req/s meets the bucket a few short of the window's 200, one request passes a refill later,
// then the window is full until its edge. Read as a slow bucket (its three comebacks averaged over
// the shut), the probe spent its 150 s and ended "shut until an edge, not a bucket; not sized" at
// every phase, and the stage searched the rate with k6 rounds (319 s on the bench, 1-2 Dec). Now the
// single and the long shut after it say another limit is in front (recover.ts resetAfterSingle),
// and every run the bucket cuts short is topped up to what the window lets through (ping.ts topUp).
// A gateway's slower bucket (50 per second) is read as a bucket first, then its stream shows the
// window shut: that window is filled to its shut and read from its next comeback (behind-front.ts).

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { tallyWindows } from './window-tally.js';

const stack = (rateRps: number, burst: number, phaseS: number): LimiterSet => [
  { kind: 'bucket', rate_rps: rateRps, burst },
  { kind: 'fixed-window', limit: 200, window_s: 10, phase_s: phaseS, counts_refused: false },
];

/**
 * Each phase probed for `ratelimit`'s 150 s, tallied (window-tally.ts); a reading that names a
 * limiter is the window, said to be behind a faster limit, its burst the drain's.
 */
const sweep = (rateRps: number, burst: number, phases: readonly number[], oneWayMs = 0) =>
  tallyWindows(
    200,
    phases.map((phaseS) => {
      const truth = stack(rateRps, burst, phaseS);
      const limiter = fromModel(truth);
      const network = oneWayMs > 0 ? { network: { oneWayMs, jitterMs: oneWayMs / 3, seed: 3 } } : {};
      return {
        phaseS,
        truth,
        probe: () => discoverVirtual({ limiter: () => limiter, status: 429, ...network }, { maxDurationS: 150 }),
      };
    }),
    (e, row) => {
      // Across a network the drain's clump can come back whole: no faster limit is seen then.
      if (oneWayMs > 0) return;
      expect(e.limiter_evidence.join('\n'), row).toMatch(/faster limit|another limit/);
      // A burst from idle meets the bucket first, not the window's 200: the burst said is the
      // drain's, with why.
      expect(e.burst, row).toBeLessThan(200);
      expect(e.notes.join('\n'), row).toMatch(/faster limit in front of the window first/);
    },
  );

describe('a bucket before a fixed window of 200 per 10 s, at phases of the window', () => {
  it("100 per second, burst 100: ratelimit's 150 s probe sizes the window at most phases, never anything else", async () => {
    const { counts, rows } = await sweep(100, 100, [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5]);
    // 197 to 199 pass from idle at the drain's 200 req/s. Before (2 Dec 2026): 0 sized, 10 not
    // identified. The two left: an edge 0.5 s into the drain (the drain straddles it) and one 0.5 s
    // after it (the window came back while the bucket was short, so no count was the window's).
    expect(counts, rows.join('\n')).toEqual({ sized: 8, 'not identified': 2, other: 0 });
  });

  // The walk's first ping after the first edge's fill went half that edge's bracket on (the recovery's
  // pings left it 3.5 s wide): 1.7 s after the fill, 0.7 s past the next edge. And past a guess of
  // the windows opened by the first request (the readings take turns), gaps doubling to 2 s left the
  // lattice's edge as wide. Both now held to 3 % of the time since the edge before (window-edges.ts
  // firstPingGapMs, bisectEdge): four edges pin it at every phase sized. Before (6 Dec 2026): five
  // or six at 4.5, 6.25, 8.25, 8.5 and 9.5 s, 65-79 s.
  it('100 per second, burst 100: sized in four edges, within 61 s, at every phase it sizes', async () => {
    for (const phaseS of [2.25, 2.5, 3.5, 4.25, 4.5, 5.5, 6.25, 6.5, 7.5, 8.25, 8.5, 9.5]) {
      const limiter = fromModel(stack(100, 100, phaseS));
      const e = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 150 });
      expect(e.limiter, `phase ${phaseS}`).toMatchObject({ kind: 'fixed-window', limit: 200, window_s: 10 });
      expect(e.limiter_evidence.join('\n'), `phase ${phaseS}`).toMatch(/\b4 window edges/);
      expect(e.duration_s, `phase ${phaseS}`).toBeLessThan(61);
    }
  });

  // The clump after the first edge, cut two short of 200 by the bucket, topped up one at a time
  // until the window shut; the refused top-ups, sent by doubling gaps up to 0.9 of the shut, were
  // taken for the count's end, on the next edge's lower bound, so the count of 200 was read as one
  // that ran past that edge (ping.ts toppedEndMs); and counted again behind the bucket without a
  // top-up, 1, where the next ping took what the bucket had left (window-edges.ts recountLimit).
  // Either alone read it "not identified" at an edge 8.25 s past the second (before: 0 of 1 sized).
  it('100 per second, an edge 8.25 s past the second: the clump topped up to 200 is the count', async () => {
    const { counts, rows } = await sweep(100, 100, [8.25]);
    expect(counts, rows.join('\n')).toEqual({ sized: 1, 'not identified': 0, other: 0 });
  });

  // 5 ms away, the drain's clump came back whole (no faster limit seen) and the bucket cut each
  // clump after it two short of 200: the next ping found what the window had left, was taken for
  // its edge, and the fill after it was refused at once; those rooms in the lattice left the edges
  // "not evenly spaced" (and on the real emulator, read 198 per 15.2 s: 13 req/s for 20).
  it('100 per second across a network 5 ms away: room left in a window is no edge', async () => {
    const { counts, rows } = await sweep(100, 100, [2.25, 2.75, 3.25, 3.75, 4.25, 4.75, 5.25, 5.75], 5);
    // Before (3 Dec 2026): 4 sized, 4 not identified.
    expect(counts, rows.join('\n')).toEqual({ sized: 8, 'not identified': 0, other: 0 });
  });

  // A gateway's bucket slower than the drain: its refills trickle back at 50 req/s, read as a bucket,
  // and the stream at that rate fills the window, shut until its edge ("not a bucket; not sized").
  // The window is then filled to its shut and read from its next comeback (probe/behind-front.ts).
  it('50 per second, burst 50: the window behind the bucket the stream read is sized at most phases', async () => {
    const { counts, rows } = await sweep(50, 50, [1.5, 3.5, 5.5, 7.5, 9.5]);
    // Before: 0 sized, 5 not identified. Left: the edge 1.5 s in, whose stream was shut 2.6 s only.
    expect(counts, rows.join('\n')).toEqual({ sized: 4, 'not identified': 1, other: 0 });
  });

  // The stream's own comeback after its long shut was the window's edge: the walk reaches back to it
  // (window-edges.ts leadOf), times the comeback after its fill as finely as its own edges, and
  // bisects the next edge where the two put it, so three edges pin the window to ±0.2 % (±0.7-1.0 %
  // before, which on the real emulator took a fourth edge, 10 s more, in two runs of three); the
  // window behind is looked for straight after the stream, not after the burst from idle,
  // Retry-After and scope the window path measures again; and no clump from idle, which the bucket
  // cuts at 63, is taken to tell a window from a bucket refilled by a timer. Before (5 Dec 2026):
  // 7 of 10 phases sized, in 76-90 s (one 9.9 s long), the other 139.6 s; now 8 of 10 in 53-60 s.
  it('50 per second, burst 50: sized within 60 s to ±0.5 % at every phase whose stream saw the window come back', async () => {
    const phases = [2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5];
    const { counts, rows } = await sweep(50, 50, phases);
    expect(counts, rows.join('\n')).toEqual({ sized: phases.length, 'not identified': 0, other: 0 });
    for (const phaseS of phases) {
      const limiter = fromModel(stack(50, 50, phaseS));
      const e = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 150 });
      expect(e.duration_s, `phase ${phaseS}`).toBeLessThan(62);
      expect(e.limiter, `phase ${phaseS}`).toMatchObject({ kind: 'fixed-window', limit: 200, window_s: 10 });
      const edges = /(\d+) window edges [\d.]+ s apart \(±([\d.]+) %/.exec(e.limiter_evidence.join('\n'));
      expect(Number(edges?.[2]), `phase ${phaseS}: ${edges?.[0]}`).toBeLessThanOrEqual(0.5);
      expect(e.notes.join('\n'), `phase ${phaseS}`).toMatch(/faster limit in front lets 6\d through at once/);
    }
  });

  // The walk takes up to six windows: with less time left than that, the window is not filled at
  // all (the k6 rounds size it, its quota left to them). Started anyway, a 60 s probe ran to its cap
  // and still said "not identified". (The window behind is looked for straight after the stream
  // now, 14 s in, so a 60 s probe has the six 6 s shuts it saw left: a 45 s one has not.)
  it('50 per second in a 45 s probe: the window behind it is not walked when the time left cannot size it', async () => {
    const limiter = fromModel(stack(50, 50, 7.5));
    const e = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 45 });
    expect(e.limiter).toBeNull();
    expect(e.notes.join('\n')).toMatch(/shut until an edge, not a bucket; not sized/);
    expect(e.duration_s).toBeLessThan(25);
  });
});
