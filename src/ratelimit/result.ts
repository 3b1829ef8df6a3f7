// The report's `rate_limit` section from the probe's estimate, the recommendation and its proof.
// Pure, so the contract's shape is decided in one place and tested without a server.

import type {
  AdvertisedLimit,
  SustainedAnnounced,
  ProofHorizon,
  ProofRound,
  ProofUnproven,
  RateLimitMeasurement,
  RateLimitResult,
} from '../report/model.js';
import { fleetSummaryLines } from './fleet/summary-lines.js';
import { describeLimiter } from './limiters/index.js';
import { SHUT_PAST_PROOF } from './horizon.js';
import { PROOF_PROMISE } from './proof-loop.js';
import { announcedCeiling } from './recommend.js';
import { round } from './estimators.js';
import { MAX_IN_FLIGHT } from './in-flight.js';
import { reasonsWithoutRefuted, refutedHeld, withoutRefuted } from './refuted.js';
import { searchHeld } from './rate-bracket.js';
import {
  advertisedText,
  horizonText,
  noLimitText,
  proofRoundText,
  sustainedText,
  unprovenText,
} from '../report/sections/rate-limit/words.js';
import type { StackVerdict } from './stacked-inference.js';
import type { Estimate, Proof, Recommendation } from './types.js';

/** What the proof loop (proof-loop.ts) made of the recommendation: its verdict and every round it ran. */
export interface Proving {
  verdict: NonNullable<RateLimitResult['proof_verdict']>;
  rounds: ProofRound[];
  /** Why the recommendation is not proven within the horizon (verdict `not proven within horizon`). */
  unproven?: ProofUnproven;
  /** How long a client's life the rounds covered; absent when none ran. */
  horizon?: ProofHorizon;
  /** What the stacked-limit inference made of all the evidence (stacked-inference.ts); absent: nothing inferred. */
  stack?: StackVerdict;
}

/**
 * `recommendation` is the policy to give: the one a proof held, or the unproven one when no proof
 * ran; null when there is none, or when proofs ran and none held (`proving` says so).
 */
export function toRateLimitResult(
  probed: Estimate,
  proposed: Recommendation | null,
  proof: Proof | null,
  proofNotes: string[] = [],
  proving: Proving = { verdict: 'not run', rounds: [] },
): RateLimitResult {
  // A reading a proof round refuted is reported nowhere (refuted.ts): what held takes its place.
  const standing = withoutRefuted(probed, proving.rounds, proving.stack);
  // A limiter not identified (none named, or the one read refuted), yet rounds held a rate over the
  // whole horizon: that rate heads the report, said as held by k6 rounds (sustained_held), whether
  // or not a round above was refused.
  const held = searchHeld(standing, proving) ?? refutedHeld(probed, standing, proving);
  const estimate = held ? { ...standing, sustained_rps: held.rps } : standing;
  const recommendation = proposed && reasonsWithoutRefuted(proposed, probed, proving.rounds);
  const notes = [...estimate.notes];
  if (recommendation) notes.push(...recommendation.why.map((w) => `recommendation: ${w}`));
  if (recommendation && proving.unproven) notes.push(`recommendation: ${unprovenText(proving.unproven)}`);
  else if (proving.verdict === 'not proven')
    notes.push(
      `no recommendation: not proven, none of the ${proving.rounds.length} policies tried kept the promise in its k6 proof`,
    );
  // Only without one: a policy the proof rounds held is given even when the probe's rate was not measured.
  else if (!recommendation && estimate.sustained_rps === null)
    notes.push(
      `no recommendation: the probe did not measure a sustained rate to size a client by${announcedMost(estimate)}`,
    );
  notes.push(...proofNotes);
  // The measurement passes through as the probe made it; only the Estimate's workings stay behind.
  const {
    sustained_precision,
    burst_from_idle,
    burst_passed,
    retry_after_max_s,
    latency_p95_ms,
    latency_alone_p95_ms,
    ratelimit_headers,
    replay_timeline,
    rate_bracket,
    out_of_budget,
    quotas_left,
    advertised,
    ...measured
  } = estimate;
  const announced = announcedBound(estimate);
  const apart = advertisedApart(advertised, estimate.announced);
  return {
    ...measured,
    ...(apart ? { advertised: apart } : {}),
    // The headline is what a client may rely on: an announced limit below the measured rate, not
    // verified, sets it, and says so beside it (every format: words.ts sustainedText).
    ...(announced ? { sustained_rps: announced.rps, sustained_announced: announced.bound } : {}),
    // The reading's precision goes with the reading only: a held or announced rate is not it.
    ...(!held && !announced && measured.sustained_rps !== null && sustained_precision !== null
      ? { sustained_precision }
      : {}),
    ...(held ? { sustained_held: held.held } : {}),
    // A refuted reading replaced by a set of limits: identified from the probe and the rounds together.
    ...(standing !== probed && standing.limiter !== null ? { identified_with_rounds: proving.rounds.length } : {}),
    // §7: only a 429 is the limit's answer; a limit that refuses with 503 is reported (with its
    // figures) but not as an observed 429.
    observed_429: estimate.limiting_status === 429,
    notes,
    recommendation: recommendation
      ? {
          target_rps: recommendation.target_rps,
          max_concurrency: recommendation.max_concurrency,
          backoff: recommendation.backoff,
        }
      : null,
    proof,
    proof_verdict: proving.verdict,
    ...(proving.rounds.length > 0 ? { proof_rounds: proving.rounds } : {}),
    ...(proving.unproven ? { proof_unproven: proving.unproven } : {}),
    ...(proving.horizon ? { proof_horizon: proving.horizon } : {}),
    ...(ratelimit_headers ? { ratelimit_headers: ratelimit_headers.names } : {}),
    reference_lines: referenceLines(estimate, recommendation, standing !== probed, held !== null),
  } satisfies OnlyMeasured<typeof measured> & RateLimitResult;
}

/**
 * The estimate what follows the proof (a fleet's sizing) rests on: what the rounds left standing
 * (refuted.ts), with a search's held rate as its sustained rate when that heads the report
 * (`result.sustained_held`), so a fleet is sized on the rate every format gives.
 */
export function standingAfterProof(
  estimate: Estimate,
  proving: Pick<Proving, 'rounds' | 'stack'>,
  result: Pick<RateLimitResult, 'sustained_rps' | 'sustained_held'>,
): Estimate {
  const standing = withoutRefuted(estimate, proving.rounds, proving.stack);
  return result.sustained_held ? { ...standing, sustained_rps: result.sustained_rps } : standing;
}

/**
 * The announced limit that binds below the measured sustained rate, unverified or disagreeing
 * (recommend.ts's announcedCeiling, which the recommendation already stays within), with its rate;
 * null when the measured rate is what holds.
 */
export function announcedBound(
  e: Pick<Estimate, 'sustained_rps' | 'advertised' | 'announced'>,
): { rps: number; bound: SustainedAnnounced } | null {
  const measured = e.sustained_rps;
  const ceiling = announcedCeiling(e);
  if (measured === null || ceiling === null || !(ceiling.rps < measured) || ceiling.limit.window_s === null)
    return null;
  const { limit, window_s, source_header, agrees } = ceiling.limit;
  return {
    rps: Math.round(ceiling.rps * 100) / 100,
    bound: { limit, window_s, source_header, agrees, measured_rps: measured },
  };
}

/**
 * The advertised limit, unless the list of every limit announced holds it already (the same quota,
 * on the same window or on one that field did not say: Kong's RateLimit-Limit beside its
 * X-RateLimit-Limit-Hour) with nothing more to say of it: one policy is one line in every format.
 */
function advertisedApart(
  advertised: AdvertisedLimit | undefined,
  announced: readonly AdvertisedLimit[] | undefined,
): AdvertisedLimit | undefined {
  if (advertised === undefined) return undefined;
  const twin = (announced ?? []).find(
    (a) =>
      a.limit === advertised.limit &&
      (a.window_s === advertised.window_s || advertised.window_s === null) &&
      (advertised.agrees === null || a.agrees === advertised.agrees),
  );
  return twin ? undefined : advertised;
}

/**
 * Beside "no recommendation": the most an announced limit lets a client send (the lowest rate of
 * those not found to agree, recommend.ts announcedCeiling), said as announced, never as measured.
 */
function announcedMost(e: Partial<Pick<Estimate, 'advertised' | 'announced'>>): string {
  const ceiling = announcedCeiling(e);
  if (ceiling === null) return '';
  const { limit, window_s, source_header, agrees } = ceiling.limit;
  const said = agrees === false ? 'announced, disagreeing with what the probe saw' : 'announced, not proven';
  return `; ${said}: at most ${limit} per ${window_s} s (${round(ceiling.rps, 4)} req/s, ${source_header})`;
}

/** What the stage reports when the probe could not start: nothing measured, the reason in the notes. */
export function notProbed(endpoint: string, why: string): RateLimitResult {
  const measured: RateLimitMeasurement = {
    endpoint,
    sustained_rps: null,
    burst: null,
    scope: 'unknown',
    retry_after_header: 'unknown',
    recovery_s: null,
    requests_sent: 0,
    requests_limited: 0,
    notes: [`not probed: ${why}`],
    partial: true,
  };
  return { ...measured, observed_429: false, recommendation: null, proof: null };
}

/** Compiles only when `T` has no key the report's measurement lacks: an Estimate working must not leak into report.json. */
type OnlyMeasured<T> = [Exclude<keyof T, keyof RateLimitMeasurement>] extends [never] ? unknown : never;

/** The chart's reference lines, requests per second: the identified limit's sustained rate and the recommended rate. */
function referenceLines(
  estimate: Estimate,
  recommendation: Recommendation | null,
  refuted: boolean,
  held: boolean,
): Array<{ label: string; rps: number }> {
  const lines: Array<{ label: string; rps: number }> = [];
  if (estimate.sustained_rps !== null)
    lines.push({
      label: held
        ? 'highest rate k6 rounds held, the limiter not identified'
        : refuted && !estimate.limiter
          ? 'highest rate a proof held'
          : estimate.limiter
            ? `limit (${describeLimiter(estimate.limiter)})`
            : 'measured limit',
      rps: estimate.sustained_rps,
    });
  const announced = announcedBound(estimate);
  if (announced)
    lines.push({
      label: `announced limit, ${announced.bound.agrees === false ? 'disagreeing' : 'not proven'} (${announced.bound.limit} per ${announced.bound.window_s} s)`,
      rps: announced.rps,
    });
  if (recommendation) lines.push({ label: 'recommended rate', rps: recommendation.target_rps });
  return lines;
}

/** The sustained rate, burst and recovery as measured; one not measured is said so, never a placeholder printed as is. */
function measuredFigures(r: RateLimitResult): string {
  if (r.sustained_rps === null && r.burst === null && r.recovery_s === null) return 'not sized';
  const said = (label: string, value: number | null, unit: string) =>
    value === null ? `${label} not measured` : `${label} ${value}${unit}`;
  return [
    // As every format says it (words.ts): held or announced said so, the probe's own with its precision.
    r.sustained_rps === null ? 'sustained not measured' : `sustained ${sustainedText(r, (n) => `${n} req/s`)}`,
    said('burst', r.burst, ''),
    said('recovery', r.recovery_s, ' s'),
  ].join(', ');
}

/**
 * Why a probe that met no limit tested nothing: it reached under half of max_rps (NoLimitReach), so
 * its "none" is the harness's limit, not the service's; undefined when a limit was met or it did reach.
 */
export function noLimitUntested(
  endpoint: string,
  e: Pick<Estimate, 'no_limit_up_to' | 'served_rps'>,
): string | undefined {
  const n = e.no_limit_up_to;
  // A pace the service set (probe/queued-pace.ts) is not "no limit", however far the probe reached:
  // `ratelimit`'s paced rounds search below it (src/stages/rate-limit.ts), `run`'s are too short.
  if (n && e.served_rps !== undefined)
    return `${endpoint}: ${noLimitText(n, undefined, e.served_rps)}; \`ces-harness ratelimit\` searches for the rate that holds below it`;
  return n && !n.tested ? `${endpoint}: ${noLimitText(n)}` : undefined;
}

/**
 * Why a probe whose answers mostly never came may still have met a line (probe/queued-pace.ts): the
 * ones that came, came later and later at a steady pace, so the others waited in it past the request
 * timeout (128 in flight at 10 req/s wait 12.8 s, past the default 10 s). Said with the timeout that
 * lets them be answered (twice that wait, within the setting's 600 s); undefined without a line.
 */
export function lineTimedOut(
  e: Pick<Estimate, 'served_rps' | 'limiting_status'>,
  requestTimeoutS: number,
): string | undefined {
  if (e.served_rps === undefined || e.limiting_status !== null) return undefined;
  const waitS = MAX_IN_FLIGHT / e.served_rps;
  if (waitS < requestTimeoutS / 2) return undefined;
  const enoughS = Math.min(600, Math.ceil(2 * waitS));
  return `; the answers that came back came later and later at a steady ${e.served_rps} req/s, so the others may have waited in the service's line past the ${requestTimeoutS} s request timeout (${MAX_IN_FLIGHT} in flight at ${e.served_rps} req/s wait ${round(waitS, 1)} s): --request-timeout ${enoughS} (request_timeout_s) lets them be answered`;
}

/** Nothing refused: how far that was tested (words.ts noLimitText); with no reach recorded, nothing was measured. */
function noLimitLine(r: RateLimitResult): string {
  const n = r.no_limit_up_to;
  const said = n === undefined ? 'nothing measured' : noLimitText(n, (rps) => `${rps} req/s`, r.served_rps);
  return `${said}; ${r.requests_sent} requests sent`;
}

/** The few terminal lines a `ratelimit` run ends with: estimate, recommendation, proof. */
export function summaryLines(r: RateLimitResult): string[] {
  const lines: string[] = [];
  const status = r.limiting_status ?? null;
  if (status === null) lines.push(`rate limit on ${r.endpoint}: ${noLimitLine(r)}`);
  else {
    const conformance = status === 429 ? '429' : `${status}, non-conformant: §7 wants 429`;
    lines.push(
      `rate limit on ${r.endpoint} (${conformance}): ${measuredFigures(r)}, ` +
        // 'unknown' is the header's truth not judged (a probe stopped before waiting one out), not a header unseen.
        `Retry-After ${r.retry_after_header === 'unknown' ? 'not judged' : r.retry_after_header}, scope ${r.scope}`,
    );
  }
  if (r.limiter)
    lines.push(
      `  limiter: ${describeLimiter(r.limiters?.length ? [r.limiters[0]!, ...r.limiters.slice(1)] : r.limiter)}`,
    );
  // No kind named, and why the sustained rate stands all the same.
  else if (r.sustained_held)
    lines.push(
      `  limiter: not identified; the sustained rate is ${r.sustained_held.quota_line ? 'the refill the rounds refused after a quota lie on, below the highest that paced k6 rounds held' : 'the highest that paced k6 rounds held'} (see the notes)`,
    );
  // A limit faster than the service behind it: what binds a client is the service's pace.
  if (r.served_rps !== undefined && status !== null)
    lines.push(
      `  served: the service answered what the limit admitted at ${r.served_rps} req/s, below its rate; above that a client's requests wait in a line that grows`,
    );
  if (r.advertised) lines.push(`  advertised: ${advertisedText(r.advertised)}`);
  if (r.proof_horizon) lines.push(`  horizon: ${horizonText(r.proof_horizon, r.proof_unproven)}`);
  for (const a of r.announced ?? []) lines.push(`  announced: ${advertisedText(a)}`);
  const share = r.requests_sent > 0 ? ` (${((r.requests_limited / r.requests_sent) * 100).toFixed(1)} %)` : '';
  lines.push(
    `  probe: ${r.requests_sent} requests, ${r.requests_limited} limited${share}, ${r.duration_s ?? '?'} s${r.partial ? ', partial' : ''}`,
  );
  const rec = r.recommendation;
  const unproven =
    r.proof_verdict === 'not run' && rec
      ? ' (not proven: no proof ran)'
      : r.proof_unproven && rec
        ? ` (${unprovenText(r.proof_unproven)})`
        : '';
  if (rec) {
    const b = rec.backoff;
    lines.push(
      `recommend${unproven}: ≤ ${rec.target_rps} req/s, ≤ ${rec.max_concurrency} in flight; on 429 honour Retry-After, else backoff ${b.base_ms}–${b.cap_ms} ms ${b.jitter} jitter, ≤ ${b.max_retries} retries`,
    );
  } else if (r.proof_verdict === 'not proven')
    lines.push(
      `recommend: nothing — NOT PROVEN: no policy kept its promise (≤ ${(PROOF_PROMISE.max_rate_429 * 100).toFixed(0)} % 429, no call lost) in ${r.proof_rounds?.length ?? 0} k6 proof rounds`,
    );
  else {
    // `run`'s rounds too short for what the probe saw (horizon.ts shutPastProof): why, and how to size it.
    const shut = r.notes?.find((n) => n.startsWith(`proof not run: ${SHUT_PAST_PROOF}`));
    const why = shut !== undefined ? shut.slice('proof not run: '.length) : 'no sustained rate measured';
    lines.push(`recommend: nothing (${why})${announcedMost(r)}`);
  }
  const rounds = r.proof_rounds ?? [];
  if (rounds.length > 1 || (rounds.length === 1 && r.proof_verdict !== 'proven')) {
    rounds.forEach((round, i) => lines.push(`  proof round ${i + 1}: ${proofRoundText(round)}`));
  } else {
    const p = r.proof;
    if (p)
      lines.push(
        `proof (k6 at ${rec?.target_rps ?? '?'} req/s): ${(p.rate_429 * 100).toFixed(2)} % 429, goodput ${p.goodput_rps} req/s, ${p.lost_requests} lost`,
      );
  }
  lines.push(...fleetSummaryLines(r.fleet));
  return lines;
}
