// The virtual twin of test/integration/ratelimit-network.test.ts's 'fixed window 50 per 1 s' (the
// emulator behind toxiproxy's 50 ± 10 ms each way), at 20 places of the window where the probe
// starts and 20 jitter seeds each: where the drain falls in the window and which requests arrive a
// few ms early or late decide what every edge ping sees, and the real test meets one of these
// 400 combinations per run. Once on CI (land11) it ended after 9.7 s with no rate at all: "a
// window let fewer than 49 requests through after its edge", "the window's edges were not pinned
// down (8 edges, not evenly spaced)", then measured from idle as a sliding window whose period
// trials gave up "between 0.262 s and 0.405 s after 1 trials, ± 10 ms of network noise".
//
// Here, before probe/window-edges.ts read the edges within the arrivals' noise (seenEdges), 5 of
// the 400 were not read as that fixed window (25 of 2,000 at every hundredth of the window):
// phase 0.7, seed 9 as on CI (a fill that crossed the next edge, then 'not evenly spaced', then
// a sliding window from idle); phase 0.2 seed 3 and 0.65 seed 5 as windows opened by the first
// request (the lattice on send times left 1 s out by a ms, the clock's edge extrapolated 100 ms
// early); phase 0.85 seed 18 (not evenly spaced); phase 0.05 seed 12 as a bucket refilled every
// 1.01 s. Each must be the fixed window on the clock, 50 per 1 s within 2 %.

import { describe, expect, it } from 'vitest';
import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { clockWindow, pastStatedPrecision, relativeError } from './support.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

const NETWORK = { oneWayMs: 50, jitterMs: 10 };
const PHASES = 20;
const SEEDS = 20;

const fixedAt = (phaseS: number): LimiterModel => clockWindow(50, 1, phaseS);

/** Every reading of the window at 20 phases × 20 seeds: those not the window within 2 %, and those with no claim. */
async function readings(handshakes: boolean): Promise<{ misread: string[]; unidentified: string[] }> {
  const misread: string[] = [];
  const unidentified: string[] = [];
  for (let p = 0; p < PHASES; p++) {
    const truth = fixedAt(p / PHASES);
    for (let seed = 1; seed <= SEEDS; seed++) {
      const e = await discoverVirtual({
        limiter: () => fromModel(truth),
        status: 429,
        network: { ...NETWORK, seed, ...(handshakes ? { handshakes } : {}) },
      });
      const got = e.limiter;
      const clockWindow = got?.kind === 'fixed-window' && (got.edges ?? 'clock') === 'clock' && got.limit === 50;
      const within = (relativeError(e.sustained_rps, sustainedRate(truth)) ?? Infinity) <= 0.02;
      const line = `phase ${p / PHASES} seed ${seed}: ${JSON.stringify(got)}, ${e.sustained_rps} req/s; ${e.notes.slice(0, 4).join(' / ')}`;
      const past = pastStatedPrecision(e, truth);
      if (got === null && e.sustained_rps === null) unidentified.push(line);
      else if (!clockWindow || !within || past)
        misread.push(`${line}${past ? `; past its stated precision: ${past}` : ''}`);
    }
  }
  return { misread, unidentified };
}

describe('the fixed window 50 per 1 s across 50 ± 10 ms each way, 20 phases × 20 jitter seeds', () => {
  it('is read as that window on the clock within 2 % wherever the probe starts, whatever the jitter', async () => {
    const { misread, unidentified } = await readings(false);
    const all = [...misread, ...unidentified];
    expect(all, all.join('\n')).toEqual([]);
  }, 60_000);

  // Connections opened as the drain needs them (virtual-limit.ts `handshakes`), as the CLI's probe
  // behind toxiproxy opens them: its requests reach the limiter up to a round trip later than sent,
  // out of their send order. Once (CI land33) a drain sent between two edges reached the window
  // across one and was read as a timer's bucket of 64; these 400 never met that drain, before the
  // fix or after (batch-bucket-arrival.test.ts lays it out and fails without the fix). Here the
  // window is never read as anything else; at 16 of the 400 (phase 0.45 most) the probe leaves it
  // "not identified", which paced k6 rounds then size (the integration test allows that too). And
  // every reading is within the precision it states: at phase 0.05 s, seed 10, an edge found 0.67 s
  // late let its fill run past the next edge, whose lower end then rested on that fill's tail, and the
  // window was read 50 per 1.014 s with ±1 % stated, 1.4 % off (window-edges.ts reboundEdges).
  it('with connections opened as the drain needs them: never misread, and at most 1 in 20 not identified', async () => {
    const { misread, unidentified } = await readings(true);
    expect(misread, misread.join('\n')).toEqual([]);
    expect(unidentified.length, unidentified.join('\n')).toBeLessThanOrEqual((PHASES * SEEDS) / 20);
  }, 60_000);
});
