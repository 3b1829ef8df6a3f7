// What every phase of a sweep over a limiter's window holds, whatever it was read as: never a rate
// above the limiter's (the one wrong figure that hurts), and a limiter not identified said so. Its
// row is kept for the sweep's table.

import { expect } from 'vitest';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';

/** Records the phase's row in `rows` (`phaseS` to `digits` decimals) and checks it. */
export function sweptPhase(
  rows: string[],
  at: { phaseS: number; digits: number },
  outcome: string,
  e: Estimate,
  truth: LimiterModel,
): void {
  rows.push(
    `${at.phaseS.toFixed(at.digits)} s: ${outcome}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s, ${e.requests_sent} sent, ${e.duration_s} s`,
  );
  if (e.sustained_rps !== null) expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual(1.02 * sustainedRate(truth));
  if (outcome === 'not identified')
    expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not pinned down|not sized/);
}
