// A sliding-window counter's ramp (probe/counter-ramp.ts) timed on a busy machine, across 50 ± 10 ms
// each way on the virtual clock: HAProxy's http_req_rate(10000ms) 300 counting admitted requests
// (test/integration/ratelimit-network-kinds.test.ts's row, through toxiproxy), every timer of the
// probe, every request's departure and every answer's hand-over up to 10–20 ms late (virtual-limit.ts
// `busy`). In quiet precise phases of the real tier it ended "not identified: its admissions came
// back every 0.03 s, but not on a line from the edge the pings found (9.7 s–9.88 s)" (29 Nov 2026).
//
// Before (main at da77454), 24 runs: 8 sized, 11 not identified, 5 read 1.4–5.9 % slow (3 of them
// past 2 %). Two timing assumptions broke. The ramp's clumps were placed as if sent at max_rps;
// sent at half of it, one ran past the next edge, and its lattice point, on the next window's
// lattice, read the window 10.27–10.59 s (or put the line off the edge). And a drain request in
// flight past the drain's refusal that got through was counted in the drained window and again
// after the edge: the line a step early ("not on a line from the edge"). Now each clump ends
// before the next edge can come at the rate the probe really sends, a lattice point past it is
// never used, and the drain's own are not counted after the edge: 12 sized, 12 not identified,
// none misread. Not identified still: a lattice point looked for over four steps from the first
// ping, which goes a round trip after the clump, while what the counter freed meanwhile passes
// first (pinged slower, that takes the steps): read as a counter kept shut by refused pings. Since
// an acceptance that may have been that slack is no lattice point, or allows a step more or fewer
// (counter-ramp-slack-virtual.test.ts), 13 sized, 11 not identified: 15 ms late, seed 4 sized, and seed 1
// read 29.98 req/s where it read 30.12, above the limiter's.

import { describe, expect, it } from 'vitest';
import { sustainedRate } from '../../src/ratelimit/limiters/index.js';
import { relativeError, slidingCounter } from './support.js';
import { discoverVirtual, haproxyRate } from './virtual-limit.js';

describe('a sliding-window counter ramp timed on a busy machine, across 50 ± 10 ms each way', () => {
  it('HAProxy 300 per 10 s, timers 10, 15 and 20 ms late, 8 jitter seeds each: never misread', async () => {
    const truth = slidingCounter(300, 10);
    const rows: string[] = [];
    const counts = { sized: 0, 'not identified': 0, other: 0 };
    for (const lateMs of [10, 15, 20])
      for (let seed = 1; seed <= 8; seed++) {
        const e = await discoverVirtual(
          {
            limiter: () => haproxyRate(300, 10_000, false),
            status: 429,
            network: { oneWayMs: 50, jitterMs: 10, seed },
            busy: { lateMs, seed: seed + 1000 },
          },
          { maxDurationS: 25 },
        );
        const ok = e.limiter?.kind === truth.kind && relativeError(e.sustained_rps, sustainedRate(truth)) <= 0.02;
        counts[ok ? 'sized' : e.limiter === null ? 'not identified' : 'other']++;
        rows.push(
          `${lateMs} ms late, seed ${seed}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.notes[0]}`,
        );
        if (e.limiter === null) expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not sized/);
        // Never above the limiter's rate beyond the ramp's precision.
        if (e.sustained_rps !== null) expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual(1.005 * 30);
      }
    expect(counts, rows.join('\n')).toEqual({ sized: 13, 'not identified': 11, other: 0 });
  });
});
