// The recommendation, proven: the k6 `rate-limit` scenario, steady at the recommended rate, with the
// recommended backoff (CES_BACKOFF_*), against the same endpoint. A policy that is right loses no
// request and sees (almost) no 429; the figures go into the report as `proof`.

import { PROOF_PROMISE, QUOTA_AFTER_S, droppedPastPromise, offeredLittle, type RoundCutPlan } from './proof-loop.js';
import type { RoundCut, ScenarioInputs } from '../k6/contract.js';
import { runLoadScenario } from '../k6/scenarios.js';
import { scenarioOk } from '../k6/summary.js';
import type { Credentials } from '../spec/credentials.js';
import type { LoadScenarioResult } from '../report/model.js';
import type { RateLimitEndpoint } from '../spec/endpoints.js';
import type { Proof, Recommendation } from './types.js';
import { proofConcurrency } from './recommend.js';

export interface ProveOptions {
  k6Path: string;
  bundleDir: string;
  /** Where k6 writes its summary. */
  workDir: string;
  target: { baseUrl: string; credentials: Credentials; caFile?: string };
  endpoint: RateLimitEndpoint;
  business?: ScenarioInputs['business'];
  validateMethod?: string;
  recommendation: Recommendation;
  /** How long the steady load runs, seconds. */
  durationS?: number;
  /** When the round is cut short once it certainly failed (proof-loop.ts); absent: never. */
  cut?: RoundCutPlan;
  /**
   * The policy's concurrency holds its waits (recommend.ts waitsHoldConcurrency: the limit counts
   * refused requests): k6 runs at most proofConcurrency calls at once, waits included.
   */
  waitsHoldConcurrency?: boolean;
  tokenLifetimeS: number;
  clockToleranceS: number;
  runId: string;
  signal?: AbortSignal;
}

export interface ProofRun {
  /** Null when k6 could not produce figures (the scenario's `error` says why). */
  proof: Proof | null;
  scenario: LoadScenarioResult;
  notes: string[];
  /**
   * When k6's first paced arrival was sent, ms since the epoch (the origin of refusals_began_s);
   * absent when k6 did not say. Some tenths of a second after prove() spawned it, more on a loaded machine.
   */
  arrivalsBeganMs?: number;
}

export const DEFAULT_PROOF_S = 10;

const count = (r: LoadScenarioResult, metric: string): number => {
  const v = r.extra?.[metric];
  return typeof v === 'number' ? v : 0;
};

export function proofInputs(opts: ProveOptions): ScenarioInputs {
  const rec = opts.recommendation;
  return {
    baseUrl: opts.target.baseUrl,
    clientId: opts.target.credentials.clientId,
    clientSecret: opts.target.credentials.clientSecret,
    tokenLifetimeS: opts.tokenLifetimeS,
    clockToleranceS: opts.clockToleranceS,
    rate: rec.target_rps,
    durationS: opts.durationS ?? DEFAULT_PROOF_S,
    // k6 holds a VU per call in flight, waits included; the scenario allocates more as needed.
    vus: Math.max(1, rec.max_concurrency),
    runId: opts.runId,
    retryBudgetS: rec.retry_budget_s,
    rateLimitEndpoint: opts.endpoint,
    backoff: { baseMs: rec.backoff.base_ms, capMs: rec.backoff.cap_ms, maxRetries: rec.backoff.max_retries },
    rateProfile: 'steady',
    ...(opts.waitsHoldConcurrency ? { maxCalls: proofConcurrency(rec) } : {}),
    ...(opts.cut !== undefined
      ? { cut: roundCut(opts.cut, rec.target_rps * (opts.durationS ?? DEFAULT_PROOF_S), rec.target_rps) }
      : {}),
    ...(opts.business ? { business: opts.business } : {}),
    ...(opts.validateMethod ? { validateMethod: opts.validateMethod } : {}),
  };
}

export async function prove(opts: ProveOptions): Promise<ProofRun> {
  const inputs = proofInputs(opts);
  const scenario = await runLoadScenario('rate-limit', {
    k6Path: opts.k6Path,
    bundleDir: opts.bundleDir,
    workDir: opts.workDir,
    inputs,
    ...(opts.target.caFile ? { caFile: opts.target.caFile } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return proofOfRun(scenario, inputs);
}

/** The round's figures and notes from what k6 measured (`scenario`) of the round `inputs` asked for. */
export function proofOfRun(scenario: LoadScenarioResult, inputs: ScenarioInputs): ProofRun {
  if (scenario.error) return { proof: null, scenario, notes: [`proof run did not complete: ${scenario.error}`] };

  const unborne = dropCutUnborne(scenario, inputs);
  if (unborne !== null) return { proof: null, scenario, notes: [`proof run did not complete: ${unborne}`] };
  const requests = scenario.requests;
  const cutAtS = cutAt(scenario, inputs);
  const durationS = cutAtS ?? inputs.durationS;
  const ok = count(scenario, 'logical_calls_ok');
  const lost = count(scenario, 'logical_calls_lost');
  const began =
    typeof scenario.extra?.['refusals_began_s'] === 'number' ? scenario.extra['refusals_began_s'] : undefined;
  const again = scenario.extra?.['admitted_again_s'];
  const arrivals = Math.round(inputs.rate * durationS);
  const dropped = droppedWithin(scenario.dropped_iterations, arrivals, ok + lost, cutAtS !== undefined);
  const proof: Proof = {
    rate_429: requests > 0 ? Math.round((count(scenario, 'rate_limited_responses') / requests) * 1e4) / 1e4 : 0,
    // Successful calls per second of offered load (the arrivals run for durationS; the graceful
    // tail only lets waiting calls finish).
    goodput_rps: Math.round((ok / durationS) * 100) / 100,
    lost_requests: lost,
    // When refusals began: at once, the rate is above a limit; after a while, a quota ran out.
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, inputs.rate, durationS, { dropped_arrivals: dropped, arrivals }),
    ...(began !== undefined && typeof again === 'number' && again >= began ? { admitted_again_s: again } : {}),
    ...(dropped > 0 ? { dropped_arrivals: dropped } : {}),
    arrivals,
    ...(cutAtS !== undefined ? { cut_at_s: Math.round(cutAtS * 10) / 10 } : {}),
  };
  const notes: string[] = [];
  if (cutAtS !== undefined)
    notes.push(
      cutBy(scenario, inputs) === 'drops'
        ? `proof run: cut short after ${proof.cut_at_s} s of its ${inputs.durationS} s: k6 had already dropped more of its arrivals than the promise allows (no VU free, each held by a call waiting out refusals from ${began ?? 0} s), so it could not have held`
        : `proof run: cut short after ${proof.cut_at_s} s of its ${inputs.durationS} s: its refusals (from ${began ?? 0} s) had already broken its promise, the rest would only have repeated them`,
    );
  if (dropped > 0) notes.push(droppedNote(dropped, proof, began === undefined ? inputs.maxCalls : null));
  const finding = (t: { metric: string; ok: boolean }) =>
    !t.ok && t.metric !== CUT_METRIC && t.metric !== DROP_CUT_METRIC;
  if (!scenarioOk(scenario) && scenario.thresholds.some(finding)) {
    // The cut's own thresholds are how the run was ended, said above, not a finding.
    const failed = scenario.thresholds.filter(finding).map((t) => `${t.metric} ${t.expression}`);
    notes.push(`proof run: thresholds not met (${failed.join('; ')})`);
  }
  const beganMs = scenario.extra?.['arrivals_began_ms'];
  return { proof, scenario, notes, ...(typeof beganMs === 'number' ? { arrivalsBeganMs: beganMs } : {}) };
}

/**
 * What the arrivals k6 dropped say. With no refusal, its calls were all busy at the latency met:
 * the policy's own concurrency when it held its calls to it (`capped`, CES_MAX_CALLS), else k6's
 * VUs; either way not the service, and the round sent less than its rate, which is what its hold
 * proves (refuted.ts heldAtRps). With refusals, calls waiting them out held the calls.
 */
function droppedNote(dropped: number, proof: Proof, capped: number | null | undefined): string {
  const of = `${dropped} of ${proof.arrivals} arrivals`;
  if (capped === null)
    return `proof run: k6 dropped ${of} it had no VU for, its VUs held by calls waiting out refusals: what it offered fell short of the rate`;
  return capped === undefined
    ? `proof run: k6 dropped ${of} it had no VU for (the load generator, not the service)`
    : `proof run: k6 dropped ${of} with all ${capped} calls the policy allows at once busy (its concurrency at the latency met, not the service): it sent less than its rate`;
}

/**
 * The arrivals k6 dropped within the seconds a round's figures are over. k6 counts on after a cut:
 * its executor still schedules arrivals while the calls in flight finish their waits, and drops
 * each (a 2.8 req/s scout cut after 10 s was said to have dropped 59 of its 28 arrivals, its calls
 * waiting out a minute's Retry-After for 23 s more). Every arrival up to the cut was begun or
 * dropped, and each call begun ended let through or lost, so no more were dropped than the
 * arrivals less those calls (`ended`). A round that ran its whole length has k6's own count.
 */
export function droppedWithin(k6Dropped: number, arrivals: number, ended: number, cut: boolean): number {
  return cut ? Math.min(k6Dropped, Math.max(0, arrivals - ended)) : k6Dropped;
}

/** The counter whose threshold ends a round cut short (scenarios/rate-limit.ts). */
const CUT_METRIC = 'proof_refusals_past_cut';
/** The trend of a VU's reckoning of the arrivals dropped, whose threshold ends a round too. */
const DROP_CUT_METRIC = 'proof_dropped_past_cut';

/** What ended a round early, if its cut did: its refusals, or the arrivals k6 dropped. */
function cutBy(scenario: LoadScenarioResult, inputs: ScenarioInputs): 'refusals' | 'drops' | undefined {
  if (inputs.cut === undefined) return undefined;
  if (count(scenario, CUT_METRIC) >= inputs.cut.minRefusals) return 'refusals';
  return scenario.thresholds.some((t) => t.metric === DROP_CUT_METRIC && !t.ok) ? 'drops' : undefined;
}

/**
 * The 429s past the cut that end a round (scenarios/rate-limit.ts): enough that the round's share
 * of 429s breaks the promise whatever the rest answers. Each of the round's `arrivals` ends in at
 * most one answer that is not a 429; as many again stand for token fetches and a token's turn, far
 * more than a round makes.
 */
export function refusalsBreaking(arrivals: number): number {
  const share = PROOF_PROMISE.max_rate_429;
  return Math.floor(2 * Math.ceil(arrivals) * (share / (1 - share))) + 1;
}

/**
 * Why a round cut on its drops has no figures, or null: k6's own count of dropped arrivals does not
 * break the promise over the round's planned arrivals (the cut's reckoning would then have run
 * ahead of it, say an iteration begun late taken for dropped). A round cut short is never a hold:
 * its figures, over part of the horizon, would prove the rate for that part only.
 */
export function dropCutUnborne(scenario: LoadScenarioResult, inputs: ScenarioInputs): string | null {
  if (cutBy(scenario, inputs) !== 'drops') return null;
  const planned = inputs.rate * inputs.durationS;
  if (droppedPastPromise(scenario.dropped_iterations, planned)) return null;
  return `k6 cut it on its reckoning of dropped arrivals, which its own count (${scenario.dropped_iterations} of ${Math.round(planned)} planned) does not bear out, so the round is neither a hold nor a failure`;
}

/**
 * The arrivals dropped, by a VU's reckoning (scenarios/rate-limit.ts), past which a round sent too
 * little of its rate to hold (proof-loop.ts notOffered): more than the promise allows of the whole
 * round's `arrivals`, and a second of arrivals more, for k6 starting an iteration late on a busy
 * machine (begun late is not dropped) and the reckoning's own request or two.
 */
export function droppedBreaking(arrivals: number, rateRps: number): number {
  return Math.floor(PROOF_PROMISE.max_dropped * arrivals) + Math.ceil(rateRps * DROP_RECKONING_S) + 1;
}

/** What the reckoning of drops may be off by, in seconds of arrivals. */
const DROP_RECKONING_S = 1;

/** How k6 cuts a round short (scenarios/rate-limit.ts), from the loop's plan and the round's arrivals at its rate. */
export function roundCut(plan: RoundCutPlan, arrivals: number, rateRps: number): RoundCut {
  return {
    ...plan,
    minRefusals: refusalsBreaking(arrivals),
    atOnceWithinS: QUOTA_AFTER_S,
    maxDropped: droppedBreaking(arrivals, rateRps),
  };
}

/**
 * Seconds of arrivals a round cut short ran (its first arrival to its last, and one interval), or
 * undefined when it ran its whole length.
 */
function cutAt(scenario: LoadScenarioResult, inputs: ScenarioInputs): number | undefined {
  const arrivalsS = scenario.extra?.['arrivals_s'];
  if (cutBy(scenario, inputs) === undefined) return undefined;
  if (typeof arrivalsS !== 'number') return undefined;
  const ranS = arrivalsS + 1 / inputs.rate;
  return ranS < inputs.durationS ? ranS : undefined;
}

/** The stretch after the first refusal must be this long for its rate to mean anything. */
const AFTER_QUOTA_MIN_S = 5;

/**
 * How long a round that certainly failed runs past its first refusal before it is cut short: the
 * longest window the stacked inference counts over (`maxWindowS`, half the horizon), and the
 * stretch an after-quota rate needs more. By then every such window has turned over once since the
 * quota ran out, so what the limit lets through after it is measured (a window lets nothing through
 * until its edge: a shorter stretch would read 0). The rest of the round would only repeat the refusal.
 */
export const cutAfterRefusalsS = (maxWindowS: number): number => maxWindowS + AFTER_QUOTA_MIN_S;

/**
 * What the limit let through per second once refusals began: the calls that succeeded, less those
 * the paced client had sent before (at most rate × t, so the figure errs low when k6 fell behind),
 * over the rest of the run. A bucket admits its rate then, a window its limit per window (less when
 * the stretch ends inside a window): never more than a client running for hours gets.
 *
 * None when k6 dropped most of the round's arrivals (`offered`, offeredLittle): every VU held by a
 * call waiting out a refusal, what got through after it is what k6 asked, not what the limit let
 * through. The bench's 1 s window before httprate's counter of 600 per 60 s (true 10 req/s), its
 * Retry-After the whole minute: round 1 at 24 req/s dropped 1,350 of 2,061 arrivals after the
 * quota, read "then let 2.83 req/s through", and that capped every rate after it: 2.5 given, 25 %.
 */
export function afterQuota(
  ok: number,
  began: number | undefined,
  rate: number,
  durationS: number,
  offered: { dropped_arrivals?: number; arrivals?: number } = {},
): { after_quota_rps?: number } {
  if (began === undefined || began < QUOTA_AFTER_S || durationS - began < AFTER_QUOTA_MIN_S) return {};
  if (offeredLittle(offered)) return {};
  const before = Math.min(ok, rate * began);
  return { after_quota_rps: Math.round(((ok - before) / (durationS - began)) * 100) / 100 };
}
