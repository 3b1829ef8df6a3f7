// A proof round begins where a client adopting the policy begins: on a limit at rest. A quota the
// service announces with a count left (Kong's X-RateLimit-Remaining-Minute) that the probe spent
// below what the round will send refuses the round on the probe's account, not the policy's: `run`'s
// 30 s probe left 39 of Kong's 600 per minute, its round at 8 req/s for 5 s met the end of them at
// 4.7 s and the next round was refused from its start (not proven, a conformant service failed,
// CI land64). Such a round waits until that window is whole again (probe/quota-left.ts says when).

import type { QuotaLeft } from './types.js';

/** Answers still in flight, and the count's own window read a little late. */
const MARGIN_S = 0.5;

/** What a round sends into one window of a quota: its rate over the window or its length, the shorter, and a few more (k6's first arrival at 0, the round's token). */
export const roundNeeds = (rps: number, durationS: number, windowS: number): number =>
  Math.ceil(rps * Math.min(durationS, windowS) * 1.05) + 2;

/** A round the quota wait is asked about: its rate and length, and what rounds since the probe already sent. */
export interface QuotaRound {
  rps: number;
  durationS: number;
  /** Requests the rounds run since the probe sent (they count in the same windows). */
  sentSince: number;
}

/**
 * Seconds a round starting at `nowMs` (the probe's clock) waits for the announced quotas the probe
 * left short of what it sends, and the quota that sets it; 0 when none is short. A quota whose
 * window is whole by then is not short; nor is one the round overruns even whole (waiting helps
 * nothing: the round tells). A wait past `maxS` is not taken: said instead (`tooLong`).
 */
export function quotaRestS(
  left: readonly QuotaLeft[] | undefined,
  round: QuotaRound,
  nowMs: number,
  maxS: number,
): { restS: number; quota?: QuotaLeft; tooLong?: true } {
  let longest: { restS: number; quota: QuotaLeft } | undefined;
  for (const q of left ?? []) {
    const needs = roundNeeds(round.rps, round.durationS, q.window_s);
    if (q.whole_by_ms <= nowMs || needs > q.limit || needs <= q.remaining - round.sentSince) continue;
    const restS = (q.whole_by_ms - nowMs) / 1000 + MARGIN_S;
    if (!longest || restS > longest.restS) longest = { restS, quota: q };
  }
  if (!longest) return { restS: 0 };
  return longest.restS > maxS ? { restS: 0, quota: longest.quota, tooLong: true } : longest;
}

/** The progress line for a quota wait (or one not taken). */
export function quotaRestText(r: ReturnType<typeof quotaRestS>, round: QuotaRound): string | undefined {
  const q = r.quota;
  if (!q) return undefined;
  const by = round.sentSince > 0 ? 'the probe and the rounds since it' : 'the probe';
  const what = `${by} left ${Math.max(0, q.remaining - round.sentSince)} of the announced ${q.limit} per ${q.window_s} s, fewer than a round at ${round.rps} req/s for ${round.durationS} s sends (${roundNeeds(round.rps, round.durationS, q.window_s)})`;
  return r.tooLong
    ? `${what}; its window is not whole again within the wait a round may take, so the round may meet the probe's own requests`
    : `${what}: waiting ${r.restS.toFixed(1)} s for its window to be whole again`;
}
