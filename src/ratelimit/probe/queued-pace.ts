// A limit that delays instead of refusing, deeper than the probe reaches: a pacer (uber-go/ratelimit,
// golang.org/x/time/rate's Wait), nginx `limit_req` without `nodelay` and a burst past the probe's
// requests in flight, a shaping gateway. No request is refused, yet the service answers a steady
// pace and no faster, each answer later than the one before while the requests in flight fill: its
// line grows with what is offered. Before, this read as "no limit met … run it again on a quieter
// machine" (20 req/s behind a queue of 5,000 on the emulator), and `ratelimit` gave a client nothing.
// That pace is what a client relies on all the same: above it, its requests wait in a line that
// only grows. Paced proof rounds then search below it (rate-bracket.ts). Pure: the samples in.
//
// Told apart from a service that is slow for each request (every answer takes a second): there, the
// first answer of the drain, sent alone, is as late as the last; here the first is quick and the
// line makes the rest wait. A service taking one request at a time is a line too, and the same pace
// binds a client there, so the note names both. A service slower with every request it serves
// makes a line too, but its pace keeps falling: only a steady one is read.

import { round } from '../estimators.js';
import { answeredRps } from '../intake.js';
import type { Sample } from '../types.js';
import { grewSmoothly, lineEndsMs } from './outrun.js';

/** Fewer answers than this say nothing of a pace: the line fills over the first hundred. */
export const MIN_ANSWERS = 100;
/** The last answers waited at least this many times as long as the first: a line, not a slow endpoint. */
const LINE_GROWTH = 4;
/** ...and at least this long, ms: tens of ms are a busy machine's scheduling, not a line. */
const MIN_LINE_MS = 250;
/** Answered below this share of the pace asked: the service, not the probe, set the pace. */
const BELOW_ASKED = 0.9;
/** The pace over the last two quarters agrees within this share: steady, not a service slowing down. */
const STEADY = 0.1;

export interface QueuedPace {
  /** The pace the service answered at once its line had filled, req/s. */
  servedRps: number;
  /** The drain's first answers' latency and its last answers', ms (each the median of five). */
  firstMs: number;
  lastMs: number;
  /** How many requests were in flight on average over the drain's second half (Little's law). */
  inFlight: number;
}

/**
 * The steady pace a drain that met no refusal was answered at, when its answers waited in a line
 * that grew (see above); undefined otherwise, or when any answer was a refusal.
 */
export function queuedPaceOf(drain: readonly Sample[], askedRps: number): QueuedPace | undefined {
  const answered = drain
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  if (answered.length < MIN_ANSWERS || answered.some((s) => s.answer !== 'accepted')) return undefined;
  const { firstMs, lastMs } = lineEndsMs(answered);
  if (lastMs < MIN_LINE_MS || lastMs < LINE_GROWTH * firstMs) return undefined;
  // A line grows a little with every request; a stalled probe or service makes it in one step.
  if (!grewSmoothly(answered, lastMs - firstMs)) return undefined;
  // The pace once the line had filled: the second half's answers, first to last.
  const half = answered.slice(Math.floor(answered.length / 2));
  const servedRps = answeredRps(half);
  if (servedRps === undefined || servedRps >= BELOW_ASKED * askedRps) return undefined;
  // Steady: a service slower with every request it serves answers at a pace that keeps falling.
  const mid = Math.floor(half.length / 2);
  const quarters = [half.slice(0, mid), half.slice(mid)].map((q) => answeredRps(q) ?? 0);
  if (Math.abs(quarters[0]! - quarters[1]!) > STEADY * servedRps) return undefined;
  const spanMs = Math.max(...half.map((s) => s.doneMs)) - Math.min(...half.map((s) => s.sentMs));
  const waitedMs = half.reduce((sum, s) => sum + s.doneMs - s.sentMs, 0);
  return {
    servedRps: round(servedRps, 2),
    firstMs: round(firstMs, 1),
    lastMs: round(lastMs, 1),
    inFlight: Math.round(waitedMs / spanMs),
  };
}

/** What the report says of a line that may be this machine's own (`busy`: how busy it was, probe/own-load.ts). */
export function queuedPaceUnread(q: QueuedPace, busy: string): string {
  return `the answers came back at a steady ${q.servedRps} req/s, each later than the one before, but ${busy}: the line may be this machine's own, so that pace is not read as the service's`;
}

/** What the report says of it, and why no rate as high as its pace is sustained. */
export function queuedPaceNote(q: QueuedPace): string {
  return (
    `no request was refused, but the service answered a steady ${q.servedRps} req/s and no faster, each answer later than the one before ` +
    `(the first ${round(q.firstMs / 1000, 3)} s, the last ${round(q.lastMs / 1000, 2)} s, about ${q.inFlight} in flight): ` +
    `a limit that delays instead of refusing (a queue deeper than the probe's requests in flight, a pacer, a shaping gateway), or the service's own pace; ` +
    `a client above ${q.servedRps} req/s waits in a line that only grows`
  );
}
