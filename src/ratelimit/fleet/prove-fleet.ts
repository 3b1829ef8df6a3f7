// `--fleet N`: the simulated choice proven by a k6 fleet run before it is given. The chosen policy,
// N instances, the same surge the simulator offered every candidate (fleet.offered_rps), for the
// proof's duration, against the target; held to the promise the choice was made by
// (recommend.ts: no call lost, at most MAX_RATE_429 of requests refused). Pure but for the k6 run,
// which the stage injects.

import type { FleetResult } from '../../report/model.js';
import type { FleetFigures } from './figures.js';
import { candidatePolicies } from './candidates.js';
import { limiterOf } from './limiter-of.js';
import { MAX_RATE_429 } from './recommend.js';
import type { FleetRun } from './run-setup.js';
import { sharingOf } from './sharing.js';
import { burstSize } from '../limiters/index.js';
import type { FleetSizingInput } from './size.js';

/**
 * The most instances one k6 fleet run holds here: each instance is a k6 scenario with a VU of its
 * own (a JavaScript runtime), so a fleet of hundreds would measure the load generator. Beyond
 * it the choice stays unproven, and says so.
 */
export const MAX_PROOF_INSTANCES = 64;

export type FleetProof = NonNullable<FleetResult['proof']>;

/** The k6 run that proves `fleet`'s choice, or why there is none to run. */
export function fleetProofRun(input: FleetSizingInput, fleet: FleetResult, durationS: number): FleetRun | string {
  const rec = fleet.recommendation;
  if (rec === null) return 'no policy was chosen';
  if (fleet.instances > MAX_PROOF_INSTANCES)
    return `a k6 fleet run holds at most ${MAX_PROOF_INSTANCES} instances here, not ${fleet.instances}`;
  const limiter = limiterOf(input.estimate);
  if (limiter === null) return 'no limiter to size by';
  const { sharing } = sharingOf(input.estimate.scope);
  const policy = candidatePolicies({
    recommendation: input.recommendation,
    burst: burstSize(limiter),
    instances: fleet.instances,
    sharing,
    honourRetryAfter: rec.honour_retry_after,
  }).find((p) => p.name === rec.policy);
  if (policy === undefined) return `unknown policy ${rec.policy}`;
  return {
    instances: fleet.instances,
    policy,
    offered_rps: fleet.offered_rps,
    backlog: 0,
    duration_s: durationS,
    seed: fleet.seed,
  };
}

/** The proof's verdict from what k6 counted (null: k6 produced no figures). */
export function fleetProofOf(run: FleetRun, figures: FleetFigures | null): FleetProof {
  const common = {
    instances: run.instances,
    policy: run.policy.name,
    offered_rps: run.offered_rps,
    duration_s: run.duration_s,
  };
  if (figures === null) return { ...common, verdict: 'not proven', why: 'the k6 fleet run produced no figures' };
  const measured = {
    goodput_rps: figures.goodput_rps,
    rate_429: figures.rate_429,
    lost: figures.lost,
    sent: figures.sent,
  };
  const broken: string[] = [];
  if (figures.sent === 0) broken.push('k6 sent nothing');
  if (figures.lost > 0) broken.push(`${figures.lost} calls lost`);
  if (figures.rate_429 > MAX_RATE_429)
    broken.push(
      `${(figures.rate_429 * 100).toFixed(1)} % of requests refused (promise: ≤ ${(MAX_RATE_429 * 100).toFixed(0)} %)`,
    );
  return broken.length === 0
    ? {
        ...common,
        ...measured,
        verdict: 'proven',
        why: `no call lost, ${(figures.rate_429 * 100).toFixed(1)} % refused: within the promise`,
      }
    : { ...common, ...measured, verdict: 'not proven', why: broken.join('; ') };
}
