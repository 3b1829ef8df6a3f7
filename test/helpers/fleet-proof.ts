// The fleet simulator against the real thing, for the integration test and `npm run bench -- fleet`:
// a real limiter (fleet-limiters.ts: nginx's limit_req, HAProxy's sliding window in both recipes,
// the emulator's fixed window), a k6 fleet run (scenarios/fleet.ts) of N instances per policy, and
// the simulation of the very same run, side by side. Loopback only; every k6 run is bounded by its
// scenario's maxDuration and the runner's timeout.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { candidatePolicies } from '../../src/ratelimit/fleet/candidates.js';
import type { FleetFigures } from '../../src/ratelimit/fleet/figures.js';
import { runFleetK6 } from '../../src/ratelimit/fleet/k6-proof.js';
import type { FleetPolicyName } from '../../src/ratelimit/fleet/policy.js';
import type { FleetRun } from '../../src/ratelimit/fleet/run-setup.js';
import { simulate } from '../../src/ratelimit/fleet/simulate.js';
import { spanOf } from '../../src/ratelimit/horizon.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import {
  describeProofLimiter,
  proofLimitRps,
  proofModel,
  proofReading,
  proofUpstream,
  startProofTarget,
  type ProofLimiter,
} from './fleet-limiters.js';

export interface FleetProofOptions {
  k6Path: string;
  bundleDir: string;
  limiter: ProofLimiter;
  sizes: readonly number[];
  policies: readonly FleetPolicyName[];
  durationS: number;
  /** The fleet's offered load as a multiple of the limit. */
  overload: number;
  seed?: number;
  progress?: (message: string) => void;
}

export interface FleetProofRow {
  instances: number;
  policy: FleetPolicyName;
  k6: FleetFigures | null;
  sim: FleetFigures;
  /** The round trip the simulation was given: k6's mean time per attempt, ms. */
  latency_ms: number;
  /** How late k6's instances woke from their sleeps on average, ms, which the simulation was given too. */
  wake_late_ms: number;
  /** Why k6 gave no figures, when it gave none. */
  error?: string;
}

/** HAProxy's counters start afresh after two idle periods; a tenth more for timers. */
const FORGETS_AFTER_WINDOWS = 2.1;

/** setup()'s token request this long before the fleet's time 0, ms: forgotten by the limiter by then. */
export const proofStartMarginMs = (l: ProofLimiter): number =>
  // spanOf: the window, or the bucket's whole refill; the limiter's phase does not change it.
  Math.max(DEFAULT_START_MARGIN_MS, FORGETS_AFTER_WINDOWS * (spanOf(proofModel(l, 0)) ?? 0) * 1000);

/** scenarios/fleet.ts's own margin, which gives every instance time to start. */
const DEFAULT_START_MARGIN_MS = 1000;

/** The policies as `ratelimit` would derive them from an exact reading of this limiter. */
export function policiesFor(limiter: ProofLimiter, instances: number) {
  const reading = proofReading(limiter);
  const recommendation = recommend(reading.input);
  if (recommendation === null) throw new Error(`no recommendation for ${describeProofLimiter(limiter)}`);
  return candidatePolicies({
    recommendation,
    burst: reading.burst,
    instances,
    sharing: 'shared',
    honourRetryAfter: reading.honourRetryAfter,
  });
}

export async function fleetProof(opts: FleetProofOptions): Promise<FleetProofRow[]> {
  const progress = opts.progress ?? (() => {});
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-fleet-proof-'));
  const workDir = await mkdtemp(join(tmpdir(), 'ces-fleet-k6-'));
  const upstream = await proofUpstream(opts.limiter, tlsDir);
  const rows: FleetProofRow[] = [];
  try {
    for (const instances of opts.sizes) {
      for (const policy of policiesFor(opts.limiter, instances).filter((p) => opts.policies.includes(p.name))) {
        const run: FleetRun = {
          instances,
          policy,
          offered_rps: proofLimitRps(opts.limiter) * opts.overload,
          backlog: 0,
          duration_s: opts.durationS,
          seed: opts.seed ?? 1,
          // The limiter forgets setup()'s token request before the fleet starts (FleetRun.start_margin_ms).
          start_margin_ms: proofStartMarginMs(opts.limiter),
        };
        progress(
          `fleet proof: ${instances} instance(s), ${policy.name}, ${run.offered_rps} req/s offered for ${run.duration_s} s behind ${describeProofLimiter(opts.limiter)}`,
        );
        const target = await startProofTarget(opts.limiter, upstream, tlsDir);
        let k6;
        try {
          k6 = await runFleetK6({
            k6Path: opts.k6Path,
            bundleDir: opts.bundleDir,
            workDir,
            target: { baseUrl: target.url, credentials: target.upstream.credentials, caFile: target.upstream.caFile },
            endpoint: 'tokens.validate',
            run,
            runId: randomUUID(),
          });
        } finally {
          await target.stop();
        }
        const latency = k6.attempt_ms ?? k6.latency_p50_ms ?? 5;
        const model = proofModel(opts.limiter, k6.origin_ms ?? 0);
        const earlier = k6.setup_at_ms === null ? {} : { earlier_requests_ms: [k6.setup_at_ms] };
        const sim = simulate({
          ...run,
          limiter: model,
          sharing: 'shared',
          latency_ms: latency,
          wake_late_ms: k6.wake_late_ms,
          until: 'end',
          ...earlier,
        });
        rows.push({
          instances,
          policy: policy.name,
          k6: k6.figures,
          sim,
          latency_ms: latency,
          wake_late_ms: k6.wake_late_ms,
          ...(k6.scenario.error !== undefined ? { error: k6.scenario.error } : {}),
        });
      }
    }
  } finally {
    await upstream?.close();
    await rm(tlsDir, { recursive: true, force: true });
    await rm(workDir, { recursive: true, force: true });
  }
  return rows;
}

/** The goal: the simulation within 10 % of what k6 measured, for goodput and 429 rate alike. */
export const AGREEMENT = 0.1;

/** |sim − k6| / k6; 0 when both are 0 (a client bucket refused nothing in either). */
export function relativeGap(sim: number, k6: number): number {
  if (k6 === 0) return sim === 0 ? 0 : Number.POSITIVE_INFINITY;
  return Math.abs(sim - k6) / k6;
}

/** Within AGREEMENT on goodput and 429 rate; a run in which k6 sent nothing proves nothing, so never agrees. */
export function agrees(row: FleetProofRow): boolean {
  return (
    row.k6 !== null &&
    row.k6.sent > 0 &&
    relativeGap(row.sim.goodput_rps, row.k6.goodput_rps) <= AGREEMENT &&
    relativeGap(row.sim.rate_429, row.k6.rate_429) <= AGREEMENT
  );
}
