// A limit the service itself announces as spent until past the probe's budget (issue 35: Flask-
// Limiter's quick start, "50 per hour" beside a per-second limit). Once the hour's 50 are spent,
// every answer is a refusal that says so: `RateLimit: "hour";r=0;t=3451` (or Kong's
// X-RateLimit-Remaining-Hour: 0 with RateLimit-Reset: 3451). The probe then learns nothing more
// from the rest of its budget: it sent 1,500 requests into the shut limit, all refused. Here the
// answers are watched; when refusals alone have come back for 5 s (CONFIRM_MS), each naming the same
// announced quota spent and the same moment it comes back, past the budget's end, the probe stops
// and says what binds: the announcement plus the refusals are the evidence, never one of them alone.
// A silent limit whose every refusal counts down (Retry-After, or a reset field) to one moment more
// than two budgets away stops it too, after the same 5 s of nothing let through, but claims no quota: a
// window longer than the budget is the likeliest cause, sized by no probe within it. Before, the
// probe sent into it until its budget or its max_requests ran out (a bucket of 50/s beside 200 per
// hour: 2,852 requests in 55 s, all refused, and "spent all of rate_limit.max_requests"). A
// countdown is the evidence, not a wait alone: a constant Retry-After (a misconfigured service's
// "3600" on every refusal) names a later moment each time, and never stops it.

import { round } from '../estimators.js';
import { NOT_IDENTIFIED } from '../evidence.js';
import { PAST_PROBE, probingHowTo } from '../horizon.js';
import type { AdvertisedLimit } from '../../report/model.js';
import type { Advertisement } from '../../spec/ratelimit-fields.js';
import type { Estimate, Sample } from '../types.js';

/** What the refusals and the announcement showed: the spent quota, and when it is said to come back. */
export interface ShutPastBudget {
  /** The announced quota spent; absent for a silent limit, known only by its refusals' countdown (`saidBy`). */
  ad?: Advertisement;
  /** What counted down on a silent limit's refusals: Retry-After, or a reset field. */
  saidBy?: string;
  /** The first refusal that said so, and the latest. */
  first: Sample;
  last: Sample;
  /** Probe ms the quota is said to come back at, as the first refusal said it. */
  backAtMs: number;
  refusals: number;
  /** The quota's rate is the lowest of those the answers announced: the one a sustained client meets. */
  lowest: boolean;
}

/** Reset fields are whole seconds: two readings of one window's end lie within this of each other. */
const SAME_END_MS = 2000;
/**
 * How the finding of an announced window longer than the probe's budget begins (advertised.ts
 * announcedPastBudget finds it by this).
 */
export const PAST_BUDGET = 'announced, not proven: about ';

/**
 * Refusals only for this long (nothing let through) before the probe stops: any shorter limit would
 * have lifted (advertised.ts's LONG_WINDOW_S: from there a window is tested by its own edges).
 */
const CONFIRM_MS = 5000;
/**
 * A silent limit's countdown stops the probe only when it says more than this many budgets: a wait
 * within reach of a longer probe is what the long-window phases read and explain themselves (a
 * silent minute under run's 30 s probe: "its Retry-After of 57 s says it lifts within 57 s …
 * `ces-harness ratelimit` sizes it"); past it, no reading within the budget sees the limit lift.
 */
const SILENT_PAST = 2;
/** Refusals that must have said it, at least. */
const CONFIRM_REFUSALS = 3;

/**
 * Folds the answers as they come (`observe`): the finding once the evidence holds, undefined until
 * then. `saidS`: the answer's own wait when a spent quota carries no reset of its own (Kong's
 * per-unit fields: RateLimit-Reset, the nearest quota's, or Retry-After).
 */
export class ShutWatch {
  private run: Omit<ShutPastBudget, 'last' | 'lowest'> | undefined;

  constructor(private readonly budgetEndMs: number) {}

  observe(
    sample: Sample,
    ads: readonly Advertisement[],
    said: { s: number; by: string } | undefined,
  ): ShutPastBudget | undefined {
    const run = this.run;
    if (sample.answer === 'accepted') {
      // One sent after the run began passed: the limit was not shut (answers arrive out of order).
      if (run && sample.sentMs >= run.first.sentMs) this.run = undefined;
      return undefined;
    }
    if (sample.answer !== 'limited') return undefined;
    const spent: { ad?: Advertisement; backAtMs: number; saidBy?: string } | undefined =
      spentQuota(sample, ads, said?.s) ??
      (said !== undefined && said.s * 1000 > SILENT_PAST * this.budgetEndMs
        ? { backAtMs: sample.doneMs + said.s * 1000, saidBy: said.by }
        : undefined);
    if (spent === undefined || spent.backAtMs <= this.budgetEndMs + SAME_END_MS) {
      this.run = undefined;
      return undefined;
    }
    const same =
      run !== undefined &&
      run.ad?.limit === spent.ad?.limit &&
      run.ad?.windowS === spent.ad?.windowS &&
      Math.abs(run.backAtMs - spent.backAtMs) <= SAME_END_MS;
    if (!same || run === undefined) {
      this.run = { ...spent, first: sample, refusals: 1 };
      return undefined;
    }
    run.refusals++;
    if (spent.ad) run.ad = spent.ad;
    const ad = run.ad;
    return sample.sentMs - run.first.sentMs >= CONFIRM_MS && run.refusals >= CONFIRM_REFUSALS
      ? {
          ...run,
          last: sample,
          lowest: ad !== undefined && ads.every((a) => a.windowS === null || rateOf(a) >= rateOf(ad)),
        }
      : undefined;
  }
}

const rateOf = (ad: Advertisement) => ad.limit / ad.windowS!;

/** Of the quotas an answer says are spent (remaining 0, a window said), the one that comes back last, and when. */
function spentQuota(
  sample: Sample,
  ads: readonly Advertisement[],
  saidS: number | undefined,
): { ad: Advertisement; backAtMs: number } | undefined {
  let latest: { ad: Advertisement; backAtMs: number } | undefined;
  for (const ad of ads) {
    const waitS = ad.resetS ?? saidS;
    if (ad.windowS === null || ad.remaining !== 0 || waitS === undefined) continue;
    const backAtMs = sample.doneMs + waitS * 1000;
    if (latest === undefined || backAtMs > latest.backAtMs) latest = { ad, backAtMs };
  }
  return latest;
}

/**
 * The window the quota counts over: the announced one, or for a silent limit at least the wait its
 * first refusal said (it was shut from then until its end).
 */
const windowOf = (shut: ShutPastBudget): number => shut.ad?.windowS ?? (shut.backAtMs - shut.first.doneMs) / 1000;

/** Seconds of probing verifying the spent quota takes: until it comes back, then a window to see its next edge. */
const needS = (shut: ShutPastBudget): number => Math.ceil(shut.backAtMs / 1000 + 1.01 * windowOf(shut) + 1);

/** The announced limit's finding: announced, not proven, past the budget, and how to verify it. */
export function shutFinding(shut: ShutPastBudget & { ad: Advertisement }, budgetS: number): AdvertisedLimit {
  const { ad } = shut;
  return {
    limit: ad.limit,
    window_s: ad.windowS,
    source_header: ad.source,
    agrees: null,
    note: `${PAST_BUDGET}${needS(shut)} s of probing needed, the probe's budget is ${budgetS} s; ${probingHowTo(ad.windowS!, needS(shut))}`,
  };
}

/** What the probe says when it stops: the quota that binds, what the refusals showed, how to verify it. */
export function shutText(shut: ShutPastBudget, budgetS: number): string {
  const { ad, first, last, backAtMs, refusals, lowest } = shut;
  const seen = `${refusals} refusals over ${fmt(last.sentMs - first.sentMs)} from ${fmt(first.sentMs)} on, nothing let through`;
  if (ad === undefined) {
    const away = fmt(windowOf(shut) * 1000);
    return `shut past the probe's budget: ${seen}, each ${shut.saidBy} counting down to the same moment, ${away} away, past the probe's budget (${budgetS} s), so the probe stopped there; the likeliest cause: ${PAST_PROBE} (nothing announced a quota), or else the limit lifts sooner than its refusals say; not sized; the window is at least ${away} long, so sizing it takes at least ${needS(shut)} s of probing; ${probingHowTo(windowOf(shut), needS(shut), false)}`;
  }
  const rate = `${round(rateOf(ad), 4)} req/s${lowest ? ', the lowest rate announced: the one a sustained client meets' : ''}`;
  return `${ad.source} announces ${ad.limit} per ${ad.windowS} s (${rate}), spent: ${seen}, each said it is back in ${fmt(backAtMs - first.doneMs)}, past the probe's budget (${budgetS} s), so the probe stopped there; announced, not proven: verifying it takes about ${needS(shut)} s of probing; ${probingHowTo(ad.windowS!, needS(shut))}`;
}

/**
 * The estimate of a probe that stopped at a spent quota: nothing sized (what the phases read in the
 * seconds before is no sustained rate: the quota refuses everything after them), the quota's
 * finding in place of its announcement, and why in the notes, first.
 */
export function shutEstimate(e: Estimate, shut: ShutPastBudget, budgetS: number): Estimate {
  const note = `${NOT_IDENTIFIED}${shutText(shut, budgetS)}`;
  const { ad } = shut;
  // A silent limit announced nothing: its refusals' countdown is the note, no finding of a quota.
  const finding = ad !== undefined ? shutFinding({ ...shut, ad }, budgetS) : undefined;
  const same = (a: AdvertisedLimit) => a.limit === finding?.limit && a.window_s === finding.window_s;
  const announced = finding ? e.announced?.map((a) => (same(a) ? finding : a)) : e.announced;
  const advertised = !finding
    ? e.advertised
    : !e.advertised || same(e.advertised) || !announced
      ? finding
      : e.advertised;
  const { rate_bracket: _searched, limiters: _set, ...rest } = e;
  return {
    ...rest,
    sustained_rps: null,
    sustained_precision: null,
    burst: null,
    recovery_s: null,
    refill_s: null,
    limiter: null,
    limiter_evidence: [note],
    ...(advertised ? { advertised } : {}),
    ...(announced ? { announced } : {}),
    // What the phases read before the quota shut is no claim (nor its precision): only the asides stay.
    notes: [note, ...e.notes.filter((n) => !CLAIMS.some((c) => n.startsWith(c)))],
    partial: true,
  };
}

const CLAIMS = ['identified: ', NOT_IDENTIFIED, 'the sustained rate rests on '];

const fmt = (ms: number) => `${round(ms / 1000, 1)} s`;
