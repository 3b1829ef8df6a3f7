// Silent sliding windows (no RateLimit field, no Retry-After) at every phase of their window: a
// sliding-window counter's edges are on the clock, so where the probe starts in its window decides
// what every drain and trial sees. A sweep of 20 phases per setting, on a virtual clock: each phase
// is read with the right kind and within 2 %, or said not identified; none may recommend more
// than the true rate. The other outcomes (a counter read as a bucket at its true rate, or with its
// window twice too long) are counted, so a change that moves a phase from one to another shows.

import { describe, expect, it } from 'vitest';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { sweptPhase } from './phase-sweep.js';

const PHASES = 20;

type Outcome = 'sized' | 'not identified' | 'other';

function outcome(e: Estimate, truth: LimiterModel): Outcome {
  const got = e.limiter;
  if (got === null) return 'not identified';
  if (got.kind !== truth.kind || got.kind === 'bucket' || truth.kind === 'bucket') return 'other';
  const length = (m: LimiterModel) => (m.kind === 'sliding-window' ? m.period_s : 'window_s' in m ? m.window_s : 0);
  const limitOk = 'limit' in truth && 'limit' in got && got.limit === truth.limit;
  return limitOk && (relativeError(length(got), length(truth)) ?? 1) <= 0.02 ? 'sized' : 'other';
}

const settings: Array<{
  name: string;
  model: (phaseS: number) => LimiterModel;
  windowS: number;
  /**
   * Measured 26 Nov 2026 (docs/development/rate-limit-research.md, the sweeps the user page quotes); before log-phase.ts the 50 per 1 s counter was read as a log 15–44 % fast at 11 phases.
   * 27 Nov 2026: a counter read as a bucket, refused after its drain for longer than that bucket refills (probe/drain-tail.ts), is not identified: 50 per 1 s 4 -> 3 other, 100 per 10 s 2 -> 1, 60 per 60 s 1 -> 0.
   * Then one whose refusals no bucket's ledger squares (probe/bucket-ledger.ts) is not identified either, nor one whose rate is over 2 % below what passed from a refusal on: 50 per 1 s 3 -> 2 other, 100 per 10 s 1 -> 0.
   */
  expected: Record<Outcome, number>;
}> = [
  {
    name: 'counter 50 per 1 s',
    model: (phaseS) => ({ kind: 'sliding-counter', limit: 50, window_s: 1, phase_s: phaseS, counts_refused: false }),
    windowS: 1,
    // 10 sized, 6 not identified before the period trials could run to 14 (jitterlog): 3 more pinned.
    // 13 -> 12 sized, 5 -> 6 not identified since the trials' waits allow a gap's noise (sliding-period.ts GAP_REACH, 4 Dec).
    expected: { sized: 12, 'not identified': 6, other: 2 },
  },
  {
    name: 'counter 100 per 10 s',
    model: (phaseS) => ({ kind: 'sliding-counter', limit: 100, window_s: 10, phase_s: phaseS, counts_refused: false }),
    windowS: 10,
    expected: { sized: 18, 'not identified': 2, other: 0 },
  },
  {
    name: 'counter 60 per 60 s',
    model: (phaseS) => ({ kind: 'sliding-counter', limit: 60, window_s: 60, phase_s: phaseS, counts_refused: false }),
    windowS: 60,
    expected: { sized: 19, 'not identified': 1, other: 0 },
  },
  {
    // A log has no phase of its own: every phase reads the same (its window is sized by no edge).
    name: 'log 100 per 10 s',
    model: () => ({ kind: 'sliding-window', limit: 100, period_s: 10, counts_refused: false }),
    windowS: 10,
    expected: { sized: 20, 'not identified': 0, other: 0 },
  },
  {
    name: 'log 60 per 60 s',
    model: () => ({ kind: 'sliding-window', limit: 60, period_s: 60, counts_refused: false }),
    windowS: 60,
    expected: { sized: 20, 'not identified': 0, other: 0 },
  },
];

describe('a silent sliding window at 20 phases of its window: right and within 2 %, or not identified', () => {
  it.each(settings)('$name', async ({ model, windowS, expected }) => {
    const counts: Record<Outcome, number> = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let i = 0; i < PHASES; i++) {
      const phaseS = ((i + 0.5) * windowS) / PHASES;
      const truth = model(phaseS);
      const e = await discoverVirtual(
        { limiter: () => fromModel(truth), status: 429 },
        { maxDurationS: Math.max(60, 3 * windowS) },
      );
      const o = outcome(e, truth);
      counts[o]++;
      sweptPhase(rows, { phaseS, digits: 2 }, o, e, truth);
    }
    if (process.env.SWEEP_TABLE) console.log(rows.join('\n'));
    expect(counts, rows.join('\n')).toEqual(expected);
  });
});
