// How long each k6 proof round waits and runs, from the limit the probe measured. A proof is only
// evidence if it could have failed: a policy above a window's limit is refused only once the
// client has sent a window's worth, so a 10 s proof of a per-minute limit holds whatever the rate
// (8 r/s for 10 s is 80 requests, far inside 600 per minute). Each round therefore runs at least
// a little longer than the limit takes to refill, and waits that long before it starts, so it meets
// a rested limit as a client adopting the policy would.

import { coveringS, longestSpan, type LongestKnown } from './horizon.js';
import type { LimiterModel, LimiterSet } from './limiters/index.js';
import { replay } from './round-replay.js';
import { IN_FLIGHT_MARGIN_S, PROBED_EDGE_MARGIN_S, onProbeClock, restS } from './stacked-inference.js';
import type { TimelinePoint } from './types.js';

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
 * A client at the policy's rate, as the first round will send: its rate, req/s; the probe's
 * requests before it (its timeline on the probe's clock).
 */
export interface PacedClient {
  rps: number;
  timeline: readonly TimelinePoint[];
}

/** How long the replayed client is followed: what the probe left weighs for two of the longest span at most, and 10 s at least. */
const followS = (limits: LimiterSet): number => Math.max(10, 2 * (longestSpan(limits)?.window_s ?? 0));

/**
 * The replayed client goes this much faster than the policy: a model read to a percent or so, and
 * k6's arrivals bunching; still below the rate the policy is 10 % under.
 */
const REPLAY_FASTER = 1.05;
/** How fast the first second's arrivals are replayed, all at once, req/s. */
const BUNCH_RPS = 1000;
/** Waits tried, s apart. */
const REPLAY_STEP_S = 0.25;

/**
 * The wait before a round at `nowS` (the probe's clock) for the limits the probe read: fixed windows
 * on the clock are fresh from their next edges and half a second, a second before the first round
 * (stacked-inference.ts restS, as the rounds after an identified set rest), never 1.1 windows after
 * the probe: the announced minute's bench row waited 66.5 s where its edge came 57 s on (1 Dec:
 * 288.8 s against its 285). A set with any other limit in it (a bucket refills, a sliding window
 * weighs the one before), or none, waits `settleS` (proofTiming's). `clockStartS`: the probe's start
 * on the wall clock, where the windows' edges are placed.
 *
 * With `paced` (the first round: no round's requests to replay yet), no longer than the probe's own
 * requests replayed through those limits say (restedByReplayS): a counter of 50 per 10 s counting
 * every request waited 1.5 of its windows, 15.5 s, where the client it proves met none of what the
 * probe left 6 s on (HAProxy, bench: 162.6 s against its 160).
 */
export function settleBeforeRoundS(
  limits: readonly LimiterModel[],
  settleS: number,
  nowS: number,
  clockStartS: number,
  paced?: PacedClient,
): number {
  const onClock = (m: LimiterModel) => m.kind === 'fixed-window' && m.edges !== 'first-request';
  const [first, ...rest] = limits.map((m) => onProbeClock(m, clockStartS));
  if (first === undefined) return settleS;
  // Past the wait found, the answers in flight; before the first round (`paced`), placed on the
  // probe's own reading of a window's edges, that reading's uncertainty too.
  const marginS = paced && limits.some(onClock) ? PROBED_EDGE_MARGIN_S : IN_FLIGHT_MARGIN_S;
  const settled = limits.every(onClock) ? Math.min(settleS, restS([first, ...rest], nowS, marginS)) : settleS;
  const replayed = paced ? restedByReplayS([first, ...rest], paced, nowS, settled, marginS) : null;
  return replayed === null ? settled : Math.min(settled, replayed);
}

/**
 * The shortest wait from `nowS`, REPLAY_STEP_S apart and below `upToS`, after which the probe's
 * requests replayed through `limits` (round-replay.ts, on the probe's clock) leave a client paced
 * REPLAY_FASTER than the policy (its first second's arrivals at once) refused no sooner over
 * followS than a rested limit would, and `marginS`; null when none is. Starting before the
 * limit has rested proves more, not less: a round that holds on what the probe left holds from rest.
 */
export function restedByReplayS(
  limits: LimiterSet,
  paced: PacedClient,
  nowS: number,
  upToS: number,
  marginS = IN_FLIGHT_MARGIN_S,
): number | null {
  for (let waitS = 0; waitS + marginS < upToS; waitS += REPLAY_STEP_S) {
    const startS = nowS + waitS;
    // The first second's arrivals at once (k6's start-up bunches them), then the pace: a limit left
    // empty by the probe refuses that bunch where a rested one takes it.
    const bunch = { rps: BUNCH_RPS, startS, durationS: Math.ceil(paced.rps) / BUNCH_RPS, tailS: 0 };
    const round = { rps: paced.rps * REPLAY_FASTER, startS: startS + 1, durationS: followS(limits), tailS: 0 };
    const once = { firstRefusalOnly: true } as const;
    const left = replay(limits, paced.timeline, [bunch, round], [once, once]).rounds;
    // Against the same client on a rested limit: a bunch past a queue's or a bucket's room is
    // refused from rest too (nginx's burst of 5 before 8 at once), and waiting changes nothing.
    const rested = replay(limits, [], [bunch, round], [once, once]).rounds;
    const noSooner = left.every((r, i) => {
      const fromRest = rested[i]?.firstRefusalS ?? null;
      return r.firstRefusalS === null || (fromRest !== null && r.firstRefusalS >= fromRest);
    });
    if (noSooner) return waitS + marginS;
  }
  return null;
}
