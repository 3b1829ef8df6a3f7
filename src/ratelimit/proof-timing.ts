// How long each k6 proof round waits and runs, from the limit the probe measured. A proof is only
// evidence if it could have failed: a policy above a window's limit is refused only once the
// client has sent a window's worth, so a 10 s proof of a per-minute limit holds whatever the rate
// (8 r/s for 10 s is 80 requests, far inside 600 per minute). Each round therefore runs at least
// a little longer than the limit takes to refill, and waits that long before it starts, so it meets
// a rested limit as a client adopting the policy would.

import { coveringS, type LongestKnown } from './horizon.js';
import type { LimiterModel } from './limiters/index.js';
import { onProbeClock, restS } from './stacked-inference.js';

/** The longest wait for short refills: half as long again as the estimate, the bucket's burst read to a request or so. */
const SHORT_SETTLE_S = 30;
/** A round spans the refill and a fifth more: a window's length is read within 2 %, the proof's start falls anywhere in it. */
const SPAN_OVER_REFILL = 1.2;
/** The wait past a long refill: a tenth more, and half a second for the answers in flight. */
const SETTLE_OVER_REFILL = 1.1;

export interface ProofTiming {
  /** Seconds to wait before each round, for the limit the probe drained to refill. */
  settleS: number;
  /** Seconds each round runs k6 for; 0 when no proof was asked for. */
  proofS: number;
}

/**
 * `refillS`: the estimate's refill time (a window's length, a bucket's burst over its rate), null
 * when unknown. `askedProofS`: the proof length configured, the horizon (0: no proof).
 * `longestWindowS`: the longest window known, measured or announced: a round spans two of it (the
 * proof horizon, horizon.ts), so a window that starts just after the proof does is still filled.
 * Never longer than `capS` each, unless the horizon asked for more (the probe's own time cap: no
 * refill longer than that was measured).
 */
export function proofTiming(
  refillS: number | null,
  askedProofS: number,
  capS: number,
  longestWindowS: number | null = null,
): ProofTiming {
  const refill = refillS ?? 0;
  const settleS = Math.max(Math.min(SHORT_SETTLE_S, refill * 1.5 + 0.5), refill * SETTLE_OVER_REFILL + 0.5);
  const proofS =
    askedProofS <= 0
      ? 0
      : Math.max(askedProofS, Math.ceil(refill * SPAN_OVER_REFILL), Math.ceil(2 * (longestWindowS ?? 0)));
  return { settleS: Math.min(settleS, capS), proofS: Math.min(proofS, Math.max(askedProofS, capS)) };
}

/**
 * How long a round runs once the rounds before it are known: the length planned from the probe's
 * reading, or two of the longest span known now (coveringS: a window or refill the inference
 * identified after a round, its margin included), whichever is longer, within `maxS` (the proof's
 * cap, as proofTiming's). A second limit found in round 1 then lengthens round 2: nginx's 30r/s
 * zone read by the probe (1 s) planned 120 s, its 600r/m zone's 60.1 s refill needs 121.
 */
export function roundLengthS(plannedS: number, longest: LongestKnown | null, maxS: number): number {
  return Math.max(plannedS, Math.min(maxS, coveringS(longest)));
}

/**
 * The wait before a round at `nowS` (the probe's clock) for the limits the probe read: fixed windows
 * on the clock are fresh from their next edges and half a second (stacked-inference.ts restS, as the
 * rounds after an identified set rest), never 1.1 windows after the probe: the announced minute's
 * bench row waited 66.5 s where its edge came 57 s on (1 Dec: 288.8 s against its 285). A set with
 * any other limit in it (a bucket refills, a sliding window weighs the one before), or none, waits
 * `settleS` (proofTiming's). `clockStartS`: the probe's start on the wall clock, where the windows'
 * edges are placed.
 */
export function settleBeforeRoundS(
  limits: readonly LimiterModel[],
  settleS: number,
  nowS: number,
  clockStartS: number,
): number {
  const onClock = (m: LimiterModel) => m.kind === 'fixed-window' && m.edges !== 'first-request';
  const [first, ...rest] = limits.map((m) => onProbeClock(m, clockStartS));
  if (first === undefined || !limits.every(onClock)) return settleS;
  return Math.min(settleS, restS([first, ...rest], nowS));
}
