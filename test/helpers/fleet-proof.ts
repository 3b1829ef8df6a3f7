// The fleet simulator against the real thing, for the integration test and `npm run bench -- fleet`:
// nginx's limit_req (a leaky bucket) in front of the emulator, a k6 fleet run (scenarios/fleet.ts)
// of N instances per policy, and the simulation of the very same run, side by side. Loopback only;
// every k6 run is bounded by its scenario's maxDuration and the runner's timeout.

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator } from '../../src/emulator/index.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { candidatePolicies } from '../../src/ratelimit/fleet/candidates.js';
import type { FleetFigures } from '../../src/ratelimit/fleet/figures.js';
import { runFleetK6 } from '../../src/ratelimit/fleet/k6-proof.js';
import type { FleetPolicyName } from '../../src/ratelimit/fleet/policy.js';
import type { FleetRun } from '../../src/ratelimit/fleet/run-setup.js';
import { simulate } from '../../src/ratelimit/fleet/simulate.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { startNginx } from './nginx.js';

export interface FleetProofOptions {
  k6Path: string;
  bundleDir: string;
  /** nginx limit_req rate (r/s) and burst. */
  rate: number;
  burst: number;
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
  latency_ms: number;
  /** Why k6 gave no figures, when it gave none. */
  error?: string;
}

/**
 * nginx's limit_req as a token bucket: it admits a request while its "excess" stays at or under
 * `burst` (in requests), counting the request itself, so from idle burst + 1 pass back to back, and
 * the excess drains at `rate`. Refused requests do not count.
 */
export const nginxModel = (rate: number, burst: number): LimiterModel => ({ kind: 'bucket', rate_rps: rate, burst: burst + 1 });

/** The policies as `ratelimit` would derive them from an exact reading of this limit. */
function policiesFor(rate: number, burst: number, instances: number) {
  const recommendation = recommend({ sustained_rps: rate, burst: burst + 1, recovery_s: 1 / rate, refill_s: (burst + 1) / rate, retry_after_header: 'absent', retry_after_max_s: null, latency_p95_ms: 5 });
  if (recommendation === null) throw new Error('no recommendation for the proof limit');
  // nginx sends no Retry-After: nothing to honour.
  return candidatePolicies({ recommendation, burst: burst + 1, instances, sharing: 'shared', honourRetryAfter: false });
}

export async function fleetProof(opts: FleetProofOptions): Promise<FleetProofRow[]> {
  const progress = opts.progress ?? (() => {});
  const tlsDir = await mkdtemp(join(tmpdir(), 'ces-fleet-proof-'));
  const workDir = await mkdtemp(join(tmpdir(), 'ces-fleet-k6-'));
  // The emulator's own limiter is off: nginx alone limits.
  const upstream = await createEmulator({ port: 0, rateLimit: { rps: 0, burst: 0 }, tlsDir });
  const rows: FleetProofRow[] = [];
  try {
    for (const instances of opts.sizes) {
      for (const policy of policiesFor(opts.rate, opts.burst, instances).filter((p) => opts.policies.includes(p.name))) {
        const run: FleetRun = { instances, policy, offered_rps: opts.rate * opts.overload, backlog: 0, duration_s: opts.durationS, seed: opts.seed ?? 1 };
        progress(`fleet proof: ${instances} instance(s), ${policy.name}, ${run.offered_rps} req/s offered for ${run.duration_s} s behind nginx ${opts.rate} r/s burst ${opts.burst}`);
        // A fresh nginx per run: every run starts on a rested limiter, as the simulation does.
        const nginx = await startNginx({ upstream: upstream.url, tlsDir, limit: { rate: opts.rate, burst: opts.burst } });
        let k6;
        try {
          k6 = await runFleetK6({
            k6Path: opts.k6Path,
            bundleDir: opts.bundleDir,
            workDir,
            target: { baseUrl: nginx.url, credentials: upstream.credentials, caFile: upstream.caFile },
            endpoint: 'tokens.validate',
            run,
            runId: randomUUID(),
          });
        } finally {
          await nginx.stop();
        }
        const latency = k6.latency_p50_ms ?? 5;
        const sim = simulate({ ...run, limiter: nginxModel(opts.rate, opts.burst), sharing: 'shared', latency_ms: latency, until: 'end' });
        rows.push({ instances, policy: policy.name, k6: k6.figures, sim, latency_ms: latency, ...(k6.scenario.error !== undefined ? { error: k6.scenario.error } : {}) });
      }
    }
  } finally {
    await upstream.close();
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

export function agrees(row: FleetProofRow): boolean {
  return row.k6 !== null && relativeGap(row.sim.goodput_rps, row.k6.goodput_rps) <= AGREEMENT && relativeGap(row.sim.rate_429, row.k6.rate_429) <= AGREEMENT;
}
