// One fleet run as plain data, and how it splits into instances: the same split for the simulator
// and for the k6 fleet scenario (which receives this object as JSON), so both put the same calls
// in the same queues at the same moments. No Node or k6 imports.

import type { InstanceSetup } from './instance.js';
import type { FleetPolicy } from './policy.js';
import { instanceSeed, seededRandom, type Random } from './random.js';

export interface FleetRun {
  instances: number;
  /** Every instance follows this policy (client-bucket's rate is already per instance). */
  policy: FleetPolicy;
  /** Logical calls per second the whole fleet is asked to make, split evenly across instances. */
  offered_rps: number;
  /** Logical calls queued at time 0 across the fleet, dealt out one by one. */
  backlog: number;
  /** Arrivals stop after this many seconds (and a steady run ends). */
  duration_s: number;
  seed: number;
  /**
   * How long after setup()'s token request the fleet's time 0 is, ms (scenarios/fleet.ts; default
   * 1000). A comparison with the simulation gives more than two of the limiter's windows, so the
   * limiter has forgotten that request by then: otherwise the simulation must place it, and it
   * knows the instant only within the request's round trip, which on a busy machine (140 ms) moved
   * an HAProxy period's edge enough to change the whole run (129 requests sent or 152).
   */
  start_margin_ms?: number;
}

/** Instance `index`'s own random stream. */
export const instanceRandom = (run: FleetRun, index: number): Random => seededRandom(instanceSeed(run.seed, index));

/**
 * Instance `index`'s queue. Its first draw places its first paced call within one interval, so
 * instances are spread as independent processes would be rather than all calling at time 0.
 */
export function instanceSetup(run: FleetRun, index: number, random: Random): InstanceSetup {
  const rate = run.offered_rps / run.instances;
  const phase = rate > 0 ? random() * (1000 / rate) : 0;
  const share = Math.floor(run.backlog / run.instances) + (index < run.backlog % run.instances ? 1 : 0);
  return {
    policy: run.policy,
    rate_rps: rate,
    backlog: share,
    phase_ms: phase,
    arrivals_until_ms: run.duration_s * 1000,
  };
}
