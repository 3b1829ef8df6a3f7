// The simulator's proof on the real thing, kept short: a k6 fleet of 4 instances (scenarios/fleet.ts)
// behind nginx's limit_req, once without jitter and once with full jitter, each beside the
// simulation of the same run. Goodput and 429 rate must agree within the 10 %.
//
// Why 10 % holds with room: goodput is pinned by the limiter (40 r/s plus the burst over 8 s) in
// both, so it agrees within about 1 %; the 429 share is a ratio over some 500–900 requests whose
// difference comes from the two runs' random streams parting after the first answer that arrives
// at another millisecond. In the bench (bench/fleet.ts) these two policies at N = 4 differ by
// 1–3 %; the simulation is given k6's measured round trip, so a slower, busy machine moves both.
// nginx and k6 are required: missing either fails with the reason, never skips.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { nginxMissing } from '../../helpers/nginx.js';
import { AGREEMENT, fleetProof, relativeGap, type FleetProofRow } from '../../helpers/fleet-proof.js';
import { bundleScenarios, realK6 } from '../../k6/support.js';

describe('fleet simulation vs a real k6 fleet of 4 behind nginx limit_req', () => {
  let rows: FleetProofRow[];
  let bundleDir: string;

  beforeAll(async () => {
    const missing = nginxMissing();
    if (missing) throw new Error(`nginx is required for the fleet proof: ${missing}`);
    const k6 = await realK6();
    if (!k6) throw new Error('k6 is required for the fleet proof (npm ci provisions it)');
    bundleDir = await bundleScenarios();
    rows = await fleetProof({ k6Path: k6.path, bundleDir, limiter: { kind: 'nginx', rate: 40, burst: 10 }, sizes: [4], policies: ['no-jitter', 'full-jitter'], durationS: 8, overload: 1.5 });
  }, 180_000);
  afterAll(async () => {
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  });

  it('ran k6 to the end for each policy, every answer a 2xx or a 429', () => {
    expect(rows.map((r) => r.policy)).toEqual(['no-jitter', 'full-jitter']);
    for (const r of rows) {
      expect(r.error).toBeUndefined();
      expect(r.k6).not.toBeNull();
      // Refusals happened (the fleet offered 1.5 × the limit), so the 429 rate is a real comparison.
      expect(r.k6!.refused).toBeGreaterThan(50);
    }
  });

  it.each(['no-jitter', 'full-jitter'])('%s: simulated goodput and 429 rate within 10 % of k6', (policy) => {
    const r = rows.find((x) => x.policy === policy)!;
    const k6 = r.k6!;
    const seen = { goodput: [k6.goodput_rps, r.sim.goodput_rps], rate_429: [k6.rate_429, r.sim.rate_429] };
    expect(relativeGap(r.sim.goodput_rps, k6.goodput_rps), JSON.stringify(seen)).toBeLessThanOrEqual(AGREEMENT);
    expect(relativeGap(r.sim.rate_429, k6.rate_429), JSON.stringify(seen)).toBeLessThanOrEqual(AGREEMENT);
  });
});
