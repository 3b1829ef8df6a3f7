// A limiter that delays before it refuses (nginx's limit_req without `nodelay`, its documented
// default form; traffic-shaping gateways): what it lets through from idle beyond its first few
// waits its turn, and the answers come back one every 1 / rate, while a request beyond its queue is
// refused at once. So a burst from idle shows it: the answers of its acceptances, in the order they
// were sent, take longer and longer, and leave the limiter at the rate the stream measured; a
// bucket answers them all as quickly as the first. Read off the bursts the probe already sent
// (the drain, the idle bursts), after the rate is known: no request of its own.
// A busy machine makes answers late too (the front or the client descheduled while they were on
// their way): a bucket 20/s burst 40 on 2 cores shared by three probes had 3 of its 44 answered
// 25–33 ms late, and read as a queue. A stall holds a few answers here and there, or a group that
// then leaves together; only a queue holds every acceptance past its first few, each one interval
// longer than the one before. So a queue is read only off that: two or more waiting, none passing
// at once after them, leaving one interval apart within what the round trips' noise blurs.

import { round } from '../estimators.js';
import { seenGapNoiseMs } from './arrival.js';
import type { QueueModel } from '../limiters/index.js';
import type { Sample } from '../types.js';

export interface QueueReading {
  model: QueueModel;
  evidence: string;
}

/** How far the answers' spacing may stray from 1 / rate for a queue to be read (timers, scheduling). */
const SPACING_SLACK = 0.25;

/**
 * The queue the bursts from idle show, or undefined when their answers did not wait (a bucket, a
 * window) or waited otherwise than a queue at `sustainedRps` makes them. `burst`: what the idle
 * bursts let through (idle-burst.ts), the first request included.
 */
export function queueOfBursts(
  samples: readonly Sample[],
  sustainedRps: number,
  burst: number,
): QueueReading | undefined {
  if (!(sustainedRps > 0) || burst < 2) return undefined;
  const bursts = burstsFromIdle(samples);
  const intervalMs = 1000 / sustainedRps;
  // The round trips' usual spread, read off the probe's refusals: a queue answers them at once as a
  // bucket does, so whatever they stray is the network's and the machine's, never the limiter's.
  const spreadMs = seenGapNoiseMs(samples.filter((s) => s.answer === 'limited'));
  const readings = bursts.map((run) => waitsOf(run, intervalMs, spreadMs)).filter((r) => r !== undefined);
  // The last burst is the one the idle rounds agreed on; every burst read must show the queue.
  const last = readings.at(-1);
  if (last === undefined || readings.length < bursts.filter((b) => acceptedBeforeRefusal(b).length >= 2).length)
    return undefined;
  // nginx lets `burst` + 1 through from idle. The last of them found the queue full: it waited
  // (burst − delay) / rate, the queue's every waiting place. Not counted off the prompt answers: a
  // busy sender spreads the burst, the queue drains meanwhile, and more pass without waiting.
  const waitingPlaces = Math.round((last.longestWaitMs * sustainedRps) / 1000);
  const model: QueueModel = {
    kind: 'queue',
    rate_rps: round(sustainedRps, 2),
    burst: burst - 1,
    delay: Math.max(0, Math.min(burst - 1, burst - 1 - waitingPlaces)),
  };
  return {
    model,
    evidence: `from idle ${last.accepted} passed, of which the last ${last.waited} waited their turn: answered one every ${Math.round(last.spacingMs)} ms (the rate's interval: ${Math.round(intervalMs)} ms), up to ${Math.round(last.longestWaitMs)} ms late, while refusals came back at once: a queue, not a bucket`,
  };
}

/**
 * The interval at which the first drain's acceptances left a queue, ms, before any rate is known;
 * undefined when they did not wait as a queue's do. What the recovery times after such a drain is
 * the queue's wait, not its refills: each ping that passes waits its turn behind the drain's (nginx
 * 10r/s burst 5: one back every 265 ms, read as 3.8 req/s, where its answers left one every 100 ms).
 * The interval is read off the waiting answers' spacing, then held to the same tests as a known
 * rate's (waitsOf), so a stall's late group is still no queue.
 */
export function queueIntervalOfDrain(samples: readonly Sample[]): number | undefined {
  const drain = samples.filter((s) => s.phase === 'drain' && s.client === 'primary');
  const first = runsOf(drain)[0];
  if (!first) return undefined;
  // Every acceptance of the drain, not only those before its first refusal: nginx refused the 4th
  // of a drain behind delay=4 (the set-up requests had taken its prompt places) and queued the 6
  // after it, one interval apart.
  const accepted = first.filter((s) => s.answer === 'accepted').sort((a, b) => a.sentMs - b.sentMs);
  if (accepted.length < 3) return undefined;
  // Answers that left no further apart than the drain sent them did not wait for a rate of their
  // own: a bucket across a network answers that way, each a jittered round trip after its request.
  // A first guess: the usual gap between answers that left well apart (the prompt ones do not).
  const sentGapMs = typicalOf(gapsOf(first.map((s) => s.sentMs))) ?? 0;
  const apart = gapsOf(accepted.map((s) => s.doneMs)).filter((gap) => gap >= QUEUE_OVER_SENDING * sentGapMs);
  const guessMs = typicalOf(apart) ?? 0;
  const spreadMs = seenGapNoiseMs(samples.filter((s) => s.answer === 'limited'));
  const rough = guessMs > 0 ? waitsOf(first, guessMs, spreadMs, accepted) : undefined;
  if (!rough || rough.spacingMs < QUEUE_OVER_SENDING * sentGapMs) return undefined;
  // Held again at its own spacing: the waiting ones are those late by half of it.
  if (!waitsOf(first, rough.spacingMs, spreadMs, accepted)) return undefined;
  return refusedSlower(samples, rough.spacingMs) ? undefined : rough.spacingMs;
}

/**
 * Whether a recovery ping was refused an interval or more after the last one let through was sent:
 * the limit then refills more slowly than the drain's answers left, which were paced by what stands
 * behind the limiter (a bucket of 10 per second before a worker that answers one every 20 ms), not
 * by a queue. A queue lets such a ping in: pinged one at a time, it never holds more than one.
 */
function refusedSlower(samples: readonly Sample[], intervalMs: number): boolean {
  const pings = samples
    .filter((s) => s.phase === 'recover' && s.client === 'primary')
    .sort((a, b) => a.sentMs - b.sentMs);
  let passedMs: number | undefined;
  for (const s of pings) {
    if (s.answer === 'accepted') passedMs = s.sentMs;
    else if (s.answer === 'limited' && passedMs !== undefined && s.sentMs - passedMs >= intervalMs) return true;
  }
  return false;
}

/** How much further apart than the drain sent them a queue's answers must leave to be read before a rate is known. */
const QUEUE_OVER_SENDING = 3;

/**
 * The middle value, the upper one of an even count: always a gap that was seen (toolkit/stats.ts
 * median averages the middle two); undefined for none.
 */
const typicalOf = (values: readonly number[]): number | undefined =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The gaps between consecutive moments, in time order. */
const gapsOf = (times: readonly number[]): number[] => {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((t, i) => t - sorted[i]!);
};

interface Waits {
  accepted: number;
  /** Acceptances answered later than the burst's quickest answer by half an interval or more: they waited in the queue. */
  waited: number;
  /** The median spacing of the waiting ones' answers, ms. */
  spacingMs: number;
  longestWaitMs: number;
}

/**
 * How the acceptances of one burst from idle waited, or undefined when they did not as a queue's
 * do. Across a network requests sent a few ms apart reach the limiter in another order than they
 * left, so the send order within the burst is trusted only beyond a round trip's usual stray: a
 * wait is an answer's round trip beyond the quickest of the burst's, and the queue is read off when
 * the answers came back.
 */
function waitsOf(
  run: readonly Sample[],
  intervalMs: number,
  spreadMs: number,
  accepted: readonly Sample[] = acceptedBeforeRefusal(run),
): Waits | undefined {
  if (accepted.length < 2) return undefined;
  const latency = (s: Sample) => s.doneMs - s.sentMs;
  const answered = run.filter((s) => s.answer !== 'error');
  const baseMs = Math.min(...answered.map(latency));
  const waitOf = (s: Sample) => latency(s) - baseMs;
  const waiting = accepted.filter((s) => waitOf(s) >= intervalMs / 2);
  // One late answer is what a stall makes as well: a queue's show as two or more.
  if (waiting.length < 2) return undefined;
  if (passedAtOnceAfter(waiting[1]!, accepted, intervalMs, waitOf, spreadMs)) return undefined;
  if (!leftOneIntervalApart(waiting, intervalMs, spreadMs)) return undefined;
  // They leave the queue one interval apart: from the last that did not wait to the last that did.
  const prompt = accepted.filter((s) => waitOf(s) < intervalMs / 2).map((s) => s.doneMs);
  const gaps = gapsOf([...(prompt.length > 0 ? [Math.max(...prompt)] : []), ...waiting.map((s) => s.doneMs)]);
  if (gaps.length === 0) return undefined;
  const spacingMs = typicalOf(gaps)!;
  if (Math.abs(spacingMs - intervalMs) > SPACING_SLACK * intervalMs) return undefined;
  // A refusal of the same burst is answered at once: it never waited (a slow service would slow it too).
  const longestWaitMs = Math.max(...waiting.map(waitOf));
  const refusals = run.filter((s) => s.answer === 'limited');
  if (refusals.some((s) => waitOf(s) >= longestWaitMs / 2)) return undefined;
  return { accepted: accepted.length, waited: waiting.length, spacingMs, longestWaitMs };
}

/**
 * Whether an acceptance sent after `held` (one that waited) passed at once while the sender kept
 * sending: a queue holds every acceptance past its first few, so that is a stall's late answer, not
 * a queue's. Unless the sender paused long enough for the queue to drain (a busy client stalls
 * too: fewer requests sent since `held` than intervals elapsed), or it went so soon after `held`
 * that a round trip's usual stray may have swapped them.
 */
function passedAtOnceAfter(
  held: Sample,
  accepted: readonly Sample[],
  intervalMs: number,
  waitOf: (s: Sample) => number,
  spreadMs: number,
): boolean {
  const strayMs = 3 * spreadMs + 1;
  const sentSince = (s: Sample) => accepted.filter((a) => a.sentMs > held.sentMs && a.sentMs <= s.sentMs).length;
  return accepted.some(
    (s) =>
      s.sentMs > held.sentMs + strayMs &&
      waitOf(s) < intervalMs / 2 &&
      s.sentMs - held.sentMs + strayMs < sentSince(s) * intervalMs,
  );
}

/**
 * Whether the waiting ones left the queue one interval apart, on average over them all: a stall
 * holds a group that then leaves together, a few ms apart. Each departure is blurred by its round
 * trip's stray, the span between the first and the last by √2 of it (twice that covers ~95 %),
 * spread over the waiting ones' gaps.
 */
function leftOneIntervalApart(waiting: readonly Sample[], intervalMs: number, spreadMs: number): boolean {
  const departures = waiting.map((s) => s.doneMs).sort((a, b) => a - b);
  const gaps = departures.length - 1;
  const meanMs = (departures.at(-1)! - departures[0]!) / gaps;
  const toleranceMs = SPACING_SLACK * intervalMs + (2 * Math.SQRT2 * spreadMs) / gaps;
  return Math.abs(meanMs - intervalMs) <= toleranceMs;
}

/** The acceptances of a burst before its first refusal, in the order they were sent. */
function acceptedBeforeRefusal(run: readonly Sample[]): Sample[] {
  const sorted = [...run].sort((a, b) => a.sentMs - b.sentMs);
  const shut = sorted.findIndex((s) => s.answer === 'limited');
  return (shut < 0 ? sorted : sorted.slice(0, shut)).filter((s) => s.answer === 'accepted');
}

/**
 * The probe's bursts from idle (idle-burst.ts), each its own run: a round's requests go out at
 * max_rps, the rounds a refill's wait apart. The drain's burst only when no idle round was sent.
 */
function burstsFromIdle(samples: readonly Sample[]): Sample[][] {
  const idle = samples.filter((s) => s.phase === 'idle-burst' && s.client === 'primary');
  return runsOf(idle.length > 0 ? idle : samples.filter((s) => s.phase === 'drain'));
}

/** Samples sent at a steady pace split into runs where a gap far longer than the usual one parts them. */
function runsOf(chosen: readonly Sample[]): Sample[][] {
  const sorted = [...chosen].sort((a, b) => a.sentMs - b.sentMs);
  const gaps = gapsOf(sorted.map((s) => s.sentMs));
  const typicalMs = typicalOf(gaps) ?? 0;
  const runs: Sample[][] = [];
  sorted.forEach((s, i) => {
    if (i === 0 || gaps[i - 1]! > Math.max(4 * typicalMs, 50)) runs.push([]);
    runs.at(-1)!.push(s);
  });
  return runs;
}
