// Fixed windows probed at many phases, tallied: sized (a fixed window of the true count within 2 %
// of the true rate), not identified, or another reading. Every reading is held to the precision
// stated (no more than 2 % above the true rate) and every "not identified" to saying why. Shared
// by the phase sweeps of fixed windows, alone and behind a faster limit.

import { expect } from 'vitest';
import { sustainedRate, type Limits } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { relativeError } from './support.js';

export interface WindowTally {
  counts: { sized: number; 'not identified': number; other: number };
  /** One line per phase, for the assertion's message. */
  rows: string[];
}

/**
 * Runs each probe in turn (`phases`: its label and what it probes) and tallies it against a fixed
 * window of `limit`; `claimed`, for each reading that named a limiter, checks more of it.
 */
export async function tallyWindows(
  limit: number,
  phases: ReadonlyArray<{ phaseS: number; truth: Limits; probe: () => Promise<Estimate> }>,
  claimed?: (e: Estimate, row: string) => void,
): Promise<WindowTally> {
  const tally: WindowTally = { counts: { sized: 0, 'not identified': 0, other: 0 }, rows: [] };
  for (const { phaseS, truth, probe } of phases) {
    const e = await probe();
    const got = e.limiter;
    const trueRps = sustainedRate(truth);
    const sized =
      got?.kind === 'fixed-window' && got.limit === limit && (relativeError(e.sustained_rps, trueRps) ?? 1) <= 0.02;
    tally.counts[sized ? 'sized' : got === null ? 'not identified' : 'other']++;
    const row = `phase ${phaseS} s: ${JSON.stringify(got)} ${e.sustained_rps} req/s, burst ${e.burst}, ${e.duration_s} s`;
    tally.rows.push(row);
    // Within the precision stated: a long window sized by its first two edges (silent-window.ts)
    // reads its middle, up to 0.6 % fast.
    if (e.sustained_rps !== null) expect(e.sustained_rps, row).toBeLessThanOrEqual(1.02 * trueRps);
    if (got === null) expect(e.notes.join('\n'), row).toMatch(/not identified|not pinned down|not sized/);
    else claimed?.(e, row);
  }
  return tally;
}
