// How long a smoothly sliding window's period can at most be, from what it let through right after
// its first recovery: the bound the period trials wait for (two of them) until they have seen the
// period's upper end, so that the first trial surely starts from a window that forgot the drain.
//
// HAProxy's http_req_rate (a count per period, the previous one weighted by what is left of the
// current) lets a request in while that weighted count is under the limit. Refused at the last ping
// before the recovery, the room was nil; each request let through after it took one unit of room;
// and room comes back only as the previous period's count fades, at most (limit + refused) / period
// per ms (a period holds at most the limit let through plus what was refused, when refusals count).
// So N requests let through from that refused ping to the end of the recovery phase took at least
// N − 1 units of fading: period < (limit + refused) × span / (N − 1). The span runs from the refused
// ping's send (it reached the limiter no earlier) to the last answer (every request had by then),
// so a busy machine only lengthens it. About 1.3 periods at HAProxy 50 per 1 s, where the limit
// times the trickle (recover.ts, which spans the clump as well) allowed 3.3.

import type { Sample } from '../types.js';

export interface FirstRecovery {
  accepted: Sample;
  lastRefused?: Sample;
}

/** ms; undefined when the recovery phase let fewer than two requests through after its last refusal. */
export function longestSmoothPeriod(
  samples: readonly Sample[],
  limit: number,
  recovery: FirstRecovery,
): number | undefined {
  const refusedAt = recovery.lastRefused;
  if (!refusedAt) return undefined;
  const after = samples.filter((s) => s.phase === 'recover' && s.sentMs >= recovery.accepted.sentMs);
  const letThrough = after.filter((s) => s.answer === 'accepted').length;
  if (letThrough < 2) return undefined;
  const refused = samples.filter((s) => s.answer === 'limited').length;
  const endMs = Math.max(...after.map((s) => s.doneMs));
  return ((limit + refused) * (endMs - refusedAt.sentMs)) / (letThrough - 1);
}
