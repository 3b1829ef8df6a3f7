// A bucket that holds one request (nginx's limit_req with no burst, the form most tutorials show;
// a GCRA with no tolerance): it lets a request through only once 1 / rate has passed since the last
// one it let through, and refuses everything sooner. Nothing passes back-to-back, so no burst is
// drained, and a stream offered a little above the rate passes at half of it or less (at 5.1 req/s
// against nginx's 5r/s, every second request: "2.54 req/s"): the detectors read neither.
//
// Its interval is bracketed by the trace: between two admissions with refusals in between, the
// limit was shut, so the interval is longer than from the first admission to the last refusal,
// and no longer than to the second admission. Then single pings bisect it: each sent a chosen gap
// after an admission, passed or refused. Only a candidate: the judge replays the whole trace
// through it before it is claimed (discover.ts).

import { round } from '../estimators.js';
import type { BucketModel } from '../limiters/index.js';
import type { Sample } from '../types.js';
import { answeredBeforeSecond, usualGapNoiseMs } from './arrival.js';
import { pingAt } from './ping.js';
import type { Probe } from './probe.js';

/** Shut spells the trace must bracket the interval by before pings bisect it. */
const SPELLS = 2;
/** Pings spent bisecting, at most: a 200 ms interval to about 1 ms. */
const TRIALS = 10;
/**
 * How far the limiter's own clock may be off the arrivals, ms: nginx keeps time to the millisecond,
 * read when its event loop woke (its 2r/s read 2.008 req/s "±0.47 %" on loopback, 0.5 % fast).
 */
const LIMITER_CLOCK_MS = 2;
/** The most the arrivals' noise may be of the interval for pings to time it (one side, BUCKET_PRECISION's 5 %, less the bracket's). */
const QUIET = 0.03;
/** Bisect until the bracket is this share of the interval, or the arrivals' noise. */
const FINE = 0.005;

/** What the trace says of the interval between admissions of a bucket of one, ms. */
export interface OneBracket {
  /** The limit was still shut this long after an admission. */
  shutMs: number;
  /** It was back this long after one. */
  backMs: number;
  /** Times it was seen shut, then back. */
  spells: number;
  /** How far a gap between two sends may be off the gap between their arrivals. */
  noiseMs: number;
}

export interface BucketOfOne {
  model: BucketModel;
  /** One side of the rate's uncertainty, a share. */
  precision: number;
  evidence: string;
}

/**
 * The interval the probe's answers bracket, or undefined: nothing was shut between two admissions,
 * the brackets disagree, or two admissions came closer than it (the limit holds more than one).
 * `samples`: every request of the probe; the second client's, last, are left out (a shared limit
 * counts them too).
 */
export function oneBracket(samples: readonly Sample[]): OneBracket | undefined {
  const answered = answeredBeforeSecond(samples);
  let [shutMs, backMs, spells, closestMs] = [0, Number.POSITIVE_INFINITY, 0, Number.POSITIVE_INFINITY];
  let admittedMs: number | undefined;
  let refusedMs: number | undefined;
  for (const s of answered) {
    if (s.answer === 'limited') {
      if (admittedMs !== undefined) refusedMs = s.sentMs;
      continue;
    }
    if (admittedMs !== undefined) {
      closestMs = Math.min(closestMs, s.sentMs - admittedMs);
      if (refusedMs !== undefined) {
        [shutMs, backMs, spells] = [
          Math.max(shutMs, refusedMs - admittedMs),
          Math.min(backMs, s.sentMs - admittedMs),
          spells + 1,
        ];
      }
    }
    [admittedMs, refusedMs] = [s.sentMs, undefined];
  }
  const noiseMs = usualGapNoiseMs(sentAlone(answered));
  // Two admissions closer than the limit was seen shut: it holds more than one. And arrivals this
  // unsure (a network, a stalled machine) could never time the interval finely enough to claim it.
  if (spells < SPELLS || shutMs >= backMs || closestMs < shutMs || noiseMs > QUIET * shutMs) return undefined;
  return { shutMs, backMs, spells, noiseMs };
}

/**
 * Bisects the interval of a bucket of one from `bracket`: each ping a gap after an admission, then
 * (refused) one at the bracket's top to be let through again. Undefined when the limit answered as
 * no bucket of one does (shut past the bracket's top), or the budget ran out before it was fine.
 */
export async function bisectBucketOfOne(probe: Probe, bracket: OneBracket): Promise<BucketOfOne | undefined> {
  let { shutMs, backMs } = bracket;
  // Finer than the arrivals and the limiter's clock are sure of, a bracket says no more.
  const fineMs = () => Math.max(FINE * backMs, bracket.noiseMs + LIMITER_CLOCK_MS);
  // Anchored on an admission: a whole top of the bracket after now, the limit is back.
  let anchor = await pingAt(probe, 'recover', probe.elapsed() + backMs);
  for (let trial = 0; trial < TRIALS && backMs - shutMs > fineMs(); trial += 1) {
    if (anchor?.answer !== 'accepted') return undefined;
    const ping = await pingAt(probe, 'recover', anchor.sentMs + (shutMs + backMs) / 2);
    if (ping === undefined || ping.answer === 'error') return undefined;
    const gapMs = ping.sentMs - anchor.sentMs;
    if (ping.answer === 'accepted') [backMs, anchor] = [Math.min(backMs, gapMs), ping];
    else {
      shutMs = Math.max(shutMs, gapMs);
      anchor = await letThroughAfter(probe, anchor, backMs, bracket.noiseMs + LIMITER_CLOCK_MS);
    }
  }
  if (backMs - shutMs > fineMs() || shutMs >= backMs + bracket.noiseMs) return undefined;
  const intervalMs = (shutMs + backMs) / 2;
  const plusMs = Math.max(0, backMs - shutMs) / 2 + bracket.noiseMs + LIMITER_CLOCK_MS;
  return {
    model: { kind: 'bucket', rate_rps: round(1000 / intervalMs, 3), burst: 1 },
    precision: round(plusMs / intervalMs, 4),
    evidence: `a bucket of one: nothing passed back-to-back; after an admission the limit stayed shut ${round(shutMs / 1000, 3)} s and was back ${round(backMs / 1000, 3)} s later (${bracket.spells} spells, then pings between)`,
  };
}

/** Tries for an admission again after a refused ping: the top of the bracket after `anchor`, then `slackMs` more each time, a few times. */
async function letThroughAfter(
  probe: Probe,
  anchor: Sample,
  backMs: number,
  slackMs: number,
): Promise<Sample | undefined> {
  for (let tries = 1; tries <= 3; tries += 1) {
    const ping = await pingAt(probe, 'recover', anchor.sentMs + backMs + tries * slackMs);
    if (ping?.answer !== 'limited') return ping;
  }
  return undefined;
}

/**
 * The requests sent with none of the probe's own in flight (the pings, one after another): what
 * the pings that bisect are timed like. A drain's round trips, queued behind each other and each
 * new connection's handshake, say nothing of them.
 */
function sentAlone(answered: readonly Sample[]): Sample[] {
  let answeredByMs = Number.NEGATIVE_INFINITY;
  const alone: Sample[] = [];
  for (const s of answered) {
    if (s.sentMs >= answeredByMs) alone.push(s);
    answeredByMs = Math.max(answeredByMs, s.doneMs);
  }
  return alone;
}
