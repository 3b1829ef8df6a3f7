// A sliding-window counter that answers its refusals with Retry-After (the whole window, whatever is
// left of it, as go-chi/httprate and the emulator's `--limiter counter` send it), at 8 phases of its
// window, on a virtual clock. A Retry-After of 5 s or more is a hypothesis of where the window's
// edge is (probe/advertised.ts); the probe used to wait it out unwatched, first asking again 1.25 s
// before the reset it said. A counter is back at its first edge after the drain, anywhere in that
// wait, and its ramp is timed inside the window that edge opens (probe/counter-ramp.ts): most of it
// was gone, and 20 per 10 s was "not identified" at 7 of 8 phases (30 Nov 2026). The wait is now
// watched (probe/watched-wait.ts). The same counter silent, whose ramp was timed too coarsely and
// was twice read as a log above its rate, is swept beside it. A Retry-After of 1 s is no such
// hypothesis: 50 per 1 s reads as it does without one, and is here to keep it so.

import { describe, expect, it } from 'vitest';
import { RUN_PROBE_CAP_S } from '../../src/ratelimit/horizon.js';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { sweptPhase } from './phase-sweep.js';

const PHASES = 8;

type Outcome = 'counter within 2 %' | 'not identified' | 'other';

function outcome(e: Estimate, truth: LimiterModel & { kind: 'sliding-counter' }): Outcome {
  const got = e.limiter;
  if (got === null) return 'not identified';
  const sized =
    got.kind === 'sliding-counter' &&
    got.limit === truth.limit &&
    (relativeError(got.window_s, truth.window_s) ?? 1) <= 0.02 &&
    (relativeError(e.sustained_rps, sustainedRate(truth)) ?? 1) <= 0.02;
  return sized ? 'counter within 2 %' : 'other';
}

describe('a sliding-window counter that sends Retry-After (and one silent), at 8 phases of its window', () => {
  it.each([
    {
      limit: 20,
      windowS: 10,
      capS: 120,
      silent: false,
      // Before the wait was watched: 1 counter within 2 %, 7 not identified (the same at 30 and 60 s).
      expected: { 'counter within 2 %': 8, 'not identified': 0, other: 0 },
    },
    {
      // `run`'s probe cap (horizon.ts RUN_PROBE_CAP_S).
      limit: 20,
      windowS: 10,
      capS: RUN_PROBE_CAP_S,
      silent: false,
      expected: { 'counter within 2 %': 8, 'not identified': 0, other: 0 },
    },
    {
      // The same counter silent: its ramp timed as the watched wait's is (lattice points by pings
      // alone, no coarser than 25 ms). Before: 1 within 2 %, 5 not identified, and 2 read as a log
      // of 20 per 6.6 s and 7.6 s, 3.01 and 2.63 req/s, above its rate (the row check fails them).
      limit: 20,
      windowS: 10,
      capS: 120,
      silent: true,
      expected: { 'counter within 2 %': 6, 'not identified': 2, other: 0 },
    },
    {
      limit: 50,
      windowS: 1,
      capS: 120,
      silent: false,
      // The same with or without Retry-After, before and after: the other is a bucket 49.04 req/s, burst 38.
      // 4 -> 5 within, 3 -> 2 not identified since the period trials' waits allow a gap's noise
      // (sliding-period.ts GAP_REACH, 4 Dec), which moves where later clumps fall.
      expected: { 'counter within 2 %': 5, 'not identified': 2, other: 1 },
    },
  ])(
    '$limit per $windowS s, probe cap $capS s, silent: $silent',
    async ({ limit, windowS, capS, silent, expected }) => {
      const counts: Record<Outcome, number> = { 'counter within 2 %': 0, 'not identified': 0, other: 0 };
      const rows: string[] = [];
      for (let i = 0; i < PHASES; i++) {
        const phaseS = ((i + 0.5) * windowS) / PHASES;
        const truth = {
          kind: 'sliding-counter',
          limit,
          window_s: windowS,
          phase_s: phaseS,
          counts_refused: false,
        } as const;
        // 120 s: the probe's default budget (discover.ts DISCOVER_DEFAULTS, the stage's without --horizon).
        const e = await discoverVirtual(
          { limiter: () => fromModel(truth), status: 429, ...(silent ? {} : { announces: 'retry-after' as const }) },
          { maxDurationS: capS },
        );
        const o = outcome(e, truth);
        counts[o]++;
        sweptPhase(rows, { phaseS, digits: 3 }, o, e, truth);
      }
      if (process.env.SWEEP_TABLE) console.log(rows.join('\n'));
      expect(counts, rows.join('\n')).toEqual(expected);
    },
  );
});
