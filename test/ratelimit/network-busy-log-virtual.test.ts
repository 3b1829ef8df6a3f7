// The sliding log 50 per 1 s across 50 ± 10 ms each way (ratelimit-network.test.ts's third limiter,
// virtually) with the probe's machine busy or stalling, as CI's is beside other heavy files. Once
// on CI (review12) its period was "not pinned down (between 0.647 s and 0.823 s after 2 trials)":
// the edges' lattice, read short, said where the trials began. And with every timer up to 10 ms
// late, before, 87 of these 100 seeds read it as a fixed window on the clock, 45–54 req/s: the edge trial
// that tells a log from a window never ran (its burst, planned at max_rps, went out late each
// time), and a trial that did not run was taken for "on the clock". A sliding log's edges follow
// the probe's fills, so they fit a lattice too. Now the trial plans for the pace its burst was sent
// at, a burst across the clock's edge can still tell a window on it (probe/straddle-trial.ts), and
// a trial that tells nothing leaves the edges' kind open: the log is then measured from idle. It
// must read as the log within 2 %, or say not identified (the stage then searches its rate with
// k6 rounds), never another kind.

import { describe, expect, it } from 'vitest';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel, type VirtualEndpoint } from './virtual-limit.js';
import { pastStatedPrecision, periodOutcome } from './support.js';

const NETWORK = { oneWayMs: 50, jitterMs: 10 };
const LOG: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };

/** The log read at seeds 1 to 100 under `machine`: outcomes counted, any other kind (or a silent "nothing") named. */
async function sweep(machine: (seed: number) => Partial<VirtualEndpoint>) {
  const counts = { 'within 2 %': 0, 'beyond 2 %': 0, 'not identified': 0, 'another kind': 0 };
  const wrong: string[] = [];
  for (let seed = 1; seed <= 100; seed++) {
    const e = await discoverVirtual({
      limiter: () => fromModel(LOG),
      status: 429,
      network: { ...NETWORK, seed },
      ...machine(seed),
    });
    const outcome = periodOutcome(e, LOG);
    counts[outcome]++;
    if (outcome === 'another kind') wrong.push(`seed ${seed}: ${JSON.stringify(e.limiter)}`);
    // Beyond 2 % or not, a reading stays within the precision it states (sliding-period.ts statedPrecision).
    const past = pastStatedPrecision(e, LOG);
    if (past) wrong.push(`seed ${seed}: ${past}`);
    // Nothing sized must say "not identified", or the stage runs no search and reports no rate.
    if (outcome === 'not identified' && !e.notes.some((n) => n.startsWith(NOT_IDENTIFIED)))
      wrong.push(`seed ${seed}: nothing sized, and not said "not identified": ${e.notes.join(' / ')}`);
  }
  return { counts, wrong: wrong.join('\n') };
}

describe('the sliding log 50 per 1 s across 50 ± 10 ms each way, on a busy machine, 100 seeds', () => {
  it.each([
    // Before: 99 within, 1 beyond.
    { lateMs: 5, expected: { 'within 2 %': 99, 'beyond 2 %': 1, 'not identified': 0, 'another kind': 0 } },
    // Before: 12 within, 1 beyond, 87 fixed windows on the clock (0.94–1.10 s).
    { lateMs: 10, expected: { 'within 2 %': 98, 'beyond 2 %': 1, 'not identified': 1, 'another kind': 0 } },
    // Before: 7 within, 93 fixed windows on the clock. Since a log no clump at another phase checked
    // is not claimed (a silent counter's edges read the same: log-unchecked-virtual.test.ts), 81 -> 70
    // within: at 11 seeds the busy probe had no time left for one, and says so.
    // 70 -> 68 within since the trials' waits allow a gap's noise (sliding-period.ts GAP_REACH, 4 Dec).
    // 68 -> 70 since the edge trial plans its clump before a log as fast as the drain's comeback (identify.ts edgeTrialPlan).
    { lateMs: 20, expected: { 'within 2 %': 70, 'beyond 2 %': 1, 'not identified': 29, 'another kind': 0 } },
  ])(
    'up to $lateMs ms late: the log, or not identified, never another kind',
    async ({ lateMs, expected }) => {
      const { counts, wrong } = await sweep((seed) => ({ busy: { lateMs, seed: seed + 2000 } }));
      expect(wrong).toBe('');
      expect(counts).toEqual(expected);
    },
    60_000,
  );

  // Before: 82 within, 11 not identified, 7 another kind (fixed windows opened by the first request, buckets).
  it('the probe and the limiter stalling 50–200 ms every 2 s: the log, or not identified', async () => {
    const { counts, wrong } = await sweep((seed) => ({
      stalls: { everyMs: 2000, minMs: 50, maxMs: 200, seed, limiter: true },
    }));
    expect(wrong).toBe('');
    // 88 -> 89 within since the edge walk's second edge keeps short of the edge after next (window-edges.ts withinNextWindow).
    // 89 -> 90: log-phase.ts sets aside a late ping refused after a clump whose first request a stall
    // held past the ping's margin (before it, with the trials' GAP_REACH waits, 84).
    // 90 -> 88 since the edge trial plans its clump off the drain's comeback too: its burst goes later,
    // and at seeds 42 and 59 a stall then cost a trial the period's pinning needed (not identified, said so).
    // 88 -> 87 since an edge whose window refused part of its fill keeps its lower end moved back
    // while the walk pins the lattice (window-edges.ts reboundEdges): a window more, and a trial less.
    expect(counts).toEqual({ 'within 2 %': 87, 'beyond 2 %': 0, 'not identified': 13, 'another kind': 0 });
  }, 60_000);
});

// A heavy tail from the start (one request in 30 with a leg 100 ms longer): the log's edges read
// 0.47 s apart, the edge trial came half a period after the last fill, its burst was refused after
// one (the log still held that fill), and its clump, let in as the fill aged out, read as a window
// opened by the first request: 50 per 0.474 s, 105 req/s (before: 97 within, 1 beyond, 2 so). A
// burst refused well short of the limit after a quiet the edges called enough now says the window is longer.
describe('the sliding log 50 per 1 s across 50 ± 10 ms each way, a heavy tail from the start, 100 seeds', () => {
  it('is never read as a window opened by the first request at twice its rate', async () => {
    const { counts, wrong } = await sweep((seed) => ({
      network: { ...NETWORK, seed, stretched: { every: 30, extraMs: 100, fromMs: 0, seed: seed + 700 } },
    }));
    expect(wrong).toBe('');
    expect(counts).toEqual({ 'within 2 %': 99, 'beyond 2 %': 1, 'not identified': 0, 'another kind': 0 });
  }, 60_000);
});
