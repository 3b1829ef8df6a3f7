// What the simulation of a real k6 run is given beyond the run itself (test/helpers/fleet-proof.ts):
// the requests the limiter saw before the run (k6's setup() fetching its token) and how late the
// instances woke from their sleeps. Each must change the simulated run the way it changes the real one.

import { describe, expect, it } from 'vitest';
import type { FleetPolicy } from '../../../src/ratelimit/fleet/policy.js';
import { instanceRandom, instanceSetup } from '../../../src/ratelimit/fleet/run-setup.js';
import { simulate, type SimulationSetup } from '../../../src/ratelimit/fleet/simulate.js';
import { proofModel } from '../../helpers/fleet-limiters.js';
import { policiesFor, proofStartMarginMs } from '../../helpers/fleet-proof.js';

const noRetry: FleetPolicy = {
  name: 'no-jitter',
  base_ms: 100,
  cap_ms: 100,
  max_retries: 0,
  honour_retry_after: false,
};
const run = (over: Partial<SimulationSetup>): SimulationSetup => ({
  instances: 1,
  policy: noRetry,
  offered_rps: 20,
  backlog: 0,
  duration_s: 1,
  seed: 3,
  latency_ms: 2,
  until: 'end',
  sharing: 'shared',
  // One window from -5 s to 5 s: the requests before the run fall in the run's window.
  limiter: { kind: 'fixed-window', limit: 10, window_s: 10, phase_s: 5, counts_refused: false },
  ...over,
});

describe('simulating a real run', () => {
  it('counts the requests the limiter saw before the run against the run', () => {
    const plain = simulate(run({}));
    const afterSetup = simulate(run({ earlier_requests_ms: [-30, -20, -10] }));
    expect(plain.succeeded).toBe(10);
    expect(afterSetup.succeeded).toBe(7);
    expect(afterSetup.sent).toBe(plain.sent);
  });

  it('moves every attempt that waited by the instances’ lateness, and drops those it pushes past the end', () => {
    // No refusals: 5 calls a second (one every 200 ms from the instance's phase), each waited for.
    const setup = run({ offered_rps: 5, limiter: { kind: 'bucket', rate_rps: 1_000, burst: 1_000 } });
    const phase = instanceSetup(setup, 0, instanceRandom(setup, 0)).phase_ms;
    const onTime = simulate(setup);
    const late = simulate({ ...setup, wake_late_ms: 190 });
    expect(onTime.refused).toBe(0);
    expect(onTime.sent).toBe(5);
    expect(late.p99_ms! - onTime.p99_ms!).toBeGreaterThanOrEqual(189);
    expect(late.p99_ms! - onTime.p99_ms!).toBeLessThanOrEqual(191);
    // A call that would go out past the end once late is never sent, as k6's loop stops there.
    const stillInRun = [0, 1, 2, 3, 4].filter((i) => phase + 200 * i + 190 < 1_000).length;
    expect(stillInRun).toBe(4); // this seed's phase (11 ms) puts the last call at 811 ms: 1,001 once late
    expect(late.sent).toBe(stillInRun);
  });

  it("a proof's run does not hang on where within its round trip setup()'s token request met HAProxy", () => {
    // CI land49: that request took 140 ms on a busy machine; placed at its midpoint, 1 s before the
    // fleet began, it put the period's edge where the simulated run changed whole (152 requests sent
    // against k6's 129). The proof starts the fleet once the limiter has forgotten it.
    const limiter = { kind: 'haproxy', limit: 40, periodMs: 1000, recipe: 'admitted' } as const;
    const policy = policiesFor(limiter, 16).find((p) => p.name === 'decorrelated-jitter')!;
    const margin = proofStartMarginMs(limiter);
    const sent = [0, 50, 100, 150, 200, 300].map(
      (slowMs) =>
        simulate({
          instances: 16,
          policy,
          offered_rps: 60,
          backlog: 0,
          duration_s: 5,
          seed: 1,
          latency_ms: 2.7,
          wake_late_ms: 0.8,
          until: 'end',
          sharing: 'shared',
          limiter: proofModel(limiter, 0),
          earlier_requests_ms: [-margin - slowMs / 2],
        }).sent,
    );
    expect(new Set(sent).size, JSON.stringify(sent)).toBe(1);
  });
});
