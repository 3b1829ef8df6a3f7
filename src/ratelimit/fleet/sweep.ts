// Every candidate policy at every fleet size up to N, each through the same two experiments: a
// surge (the fleet offered half again the limit's rate, for a while) for goodput, 429 rate and
// p99 latency, and a backlog (ten seconds of the limit's work queued at once) for the time to
// drain it. The same seed for every cell, so cells differ only by policy and size.

import { sustainedRate, type Limits } from '../limiters/index.js';
import type { FleetRow } from '../../report/model.js';
import type { FleetPolicy } from './policy.js';
import { DEFAULT_MAX_S, simulate } from './simulate.js';

/** The surge: 1.5 × the limit, enough that every policy meets refusals and the queues grow. */
export const OVERLOAD = 1.5;
/** Seconds of surge: long enough for queues, backoff and throttling to settle, bounded in calls below. */
export const SURGE_S = 30;
/**
 * At most this many logical calls per surge (and in the backlog): a limit of thousands per second
 * gets a shorter surge, so that the whole sweep stays within seconds whatever the limit.
 */
export const MAX_SURGE_CALLS = 20_000;
/** At most this many fleet sizes on the chart: a sweep's cost grows with the instances simulated. */
export const MAX_SIZES = 6;
/** The backlog, in seconds of the limit's work. */
export const BACKLOG_S = 10;
/**
 * With a limiter per instance, instances never meet: N of them behave as N independent copies of
 * one. This many are simulated and the fleet's totals scaled up, so a per-token fleet of 100,000
 * costs what 64 do.
 */
export const PER_INSTANCE_SAMPLE = 64;

export interface SweepInput {
  limiter: Limits;
  sharing: 'shared' | 'per-instance';
  /** The candidate policies at fleet size n (the client bucket's share depends on it). */
  policies: (instances: number) => FleetPolicy[];
  sizes: readonly number[];
  latency_ms: number;
  seed: number;
}

export interface SweepShape {
  offered_rps: number;
  duration_s: number;
  backlog: number;
}

/** The surge and backlog for a limit (per-instance limits scale both with the fleet). */
export function sweepShape(limiter: Limits, sharing: SweepInput['sharing'], instances: number): SweepShape {
  const rate = sustainedRate(limiter) * (sharing === 'shared' ? 1 : instances);
  const offered = Number((rate * OVERLOAD).toPrecision(4));
  return {
    offered_rps: offered,
    // Tenths of a second: a limit of 100,000 req/s gets a surge of 0.1 s, still 15,000 calls.
    duration_s: Math.max(0.1, Math.min(SURGE_S, Math.floor((MAX_SURGE_CALLS / offered) * 10) / 10)),
    backlog: Math.min(MAX_SURGE_CALLS, Math.ceil(rate * BACKLOG_S)),
  };
}

/** What is simulated for a fleet of `instances`: how many, the surge and backlog they meet, and the factor to the fleet's totals. */
export function simulatedFleet(
  limiter: Limits,
  sharing: SweepInput['sharing'],
  instances: number,
): { simulated: number; scale: number; shape: SweepShape } {
  const simulated = sharing === 'per-instance' ? Math.min(instances, PER_INSTANCE_SAMPLE) : instances;
  return { simulated, scale: instances / simulated, shape: sweepShape(limiter, sharing, simulated) };
}

/**
 * 1, 4, 16, … below N, then N itself: the chart's x axis. Beyond MAX_SIZES points the steps widen
 * (1, 16, 256, … for a fleet of 100,000), so the sweep's cost stays bounded.
 */
export function fleetSizes(instances: number): number[] {
  let step = 4;
  while (Math.log(instances) / Math.log(step) + 1 > MAX_SIZES) step *= 2;
  const sizes: number[] = [];
  for (let n = 1; n < instances; n *= step) sizes.push(n);
  sizes.push(instances);
  return sizes;
}

export function sweep(input: SweepInput): FleetRow[] {
  const rows: FleetRow[] = [];
  for (const instances of input.sizes) {
    const { simulated, scale, shape } = simulatedFleet(input.limiter, input.sharing, instances);
    for (const policy of input.policies(instances)) {
      const common = {
        limiter: input.limiter,
        sharing: input.sharing,
        instances: simulated,
        policy,
        latency_ms: input.latency_ms,
        seed: input.seed,
      };
      const surge = simulate({
        ...common,
        offered_rps: shape.offered_rps,
        backlog: 0,
        duration_s: shape.duration_s,
        until: 'end',
      });
      const drain = simulate({
        ...common,
        offered_rps: 0,
        backlog: shape.backlog,
        duration_s: DEFAULT_MAX_S,
        until: 'drained',
        max_s: DEFAULT_MAX_S,
      });
      rows.push({
        policy: policy.name,
        instances,
        goodput_rps: Math.round(surge.goodput_rps * scale * 100) / 100,
        rate_429: surge.rate_429,
        p99_ms: surge.p99_ms,
        lost: Math.round(surge.lost * scale),
        drained_s: drain.drained_s,
        drain_lost: Math.round(drain.lost * scale),
      });
    }
  }
  return rows;
}
