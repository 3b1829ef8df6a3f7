// A service slower than its own limit. A gateway's limiter (Kong, nginx limit_req) admits what its
// rate allows and the service behind it (a single worker, an undersized sandbox) answers at its own
// pace: what the limiter admits beyond that waits in line, and the line never empties while a
// client sends at the limit. The limiter's rate is read right off the send stamps, and it is not
// what a client can rely on: paced at 80 % of a bucket of 50/s behind a service taking 33 a second,
// it builds a line of 7 requests a second until its calls time out (virtually: the probe read
// "token bucket 50 req/s" while every second of its stream answered 33 admitted requests, their
// latency rising to 3.8 s).
//
// Told apart from a limiter that queues (nginx without nodelay): its line holds at most its burst,
// answered at its rate, so what it admitted comes back at the rate measured. Here they come back
// slower than that for as long as the line lasts, so discover.ts reads no queue from such a line
// (a bucket of 50/s before 41 answers a second was "queue 49.98 req/s, at most 980 ms", waits
// reaching 3.1 s). And from a service that queues every request (probe/outrun.ts): there the
// limiter meets the requests at the service's pace and reads it.

import { round } from '../../toolkit/stats.js';
import type { Sample } from '../types.js';
import { lineEndsMs } from './outrun.js';

/** Admitted answers coming back at under this share of the limit's rate: the service fell behind it. */
const SERVED_SHARE = 0.9;
/** At least this many admitted answers, over this long, in the line: a few late answers are no line. */
const MIN_ANSWERS = 30;
const MIN_SPAN_MS = 2_000;
/** Answers this much slower than the quickest, and by this much at least, waited in a line. */
const LINE_FACTOR = 3;
const LINE_MIN_MS = 50;

export interface ServedBehind {
  /** The rate the service answered admitted requests at while they waited in line, req/s. */
  servedRps: number;
  /** The median latency of the line's first and last answers, ms: it rose as the line grew. */
  fromMs: number;
  toMs: number;
  /** How long the line lasted, s. */
  overS: number;
}

/**
 * Whether the admitted answers of the probe's stream (its window) came back slower than
 * `sustainedRps` while a line of them grew: the longest stretch of answers (in the order they came
 * back) that each waited well past the quickest answer of the whole probe (`samples`: a stream that
 * met the line at once waited in it throughout), answered at under SERVED_SHARE of the rate, their
 * latency rising. Undefined when the service kept up (or it cannot be told).
 */
export function servedBehindOf(samples: readonly Sample[], sustainedRps: number): ServedBehind | undefined {
  const latency = (s: Sample) => s.doneMs - s.sentMs;
  const own = samples.filter((s) => s.client === 'primary' && s.answer === 'accepted');
  // The window alone: it keeps the limit saturated, so what it admitted went in at the limit's rate
  // (the pilot's offer is halved and raised while it looks for the rate).
  const admitted = own.filter((s) => s.phase === 'window').sort((a, b) => a.doneMs - b.doneMs);
  if (admitted.length < MIN_ANSWERS) return undefined;
  const quickestMs = Math.min(...own.map(latency));
  const inLine = (s: Sample) => latency(s) > Math.max(LINE_FACTOR * quickestMs, quickestMs + LINE_MIN_MS);
  const line = longestRun(admitted, inLine);
  if (line.length < MIN_ANSWERS) return undefined;
  const spanMs = line.at(-1)!.doneMs - line[0]!.doneMs;
  if (spanMs < MIN_SPAN_MS) return undefined;
  const servedRps = ((line.length - 1) * 1000) / spanMs;
  if (servedRps >= SERVED_SHARE * sustainedRps) return undefined;
  // A line the service falls behind grows: its last answers waited longer than its first.
  const { firstMs: fromMs, lastMs: toMs } = lineEndsMs(line);
  if (toMs <= fromMs) return undefined;
  return {
    servedRps: round(servedRps, 2),
    fromMs: round(fromMs, 0),
    toMs: round(toMs, 0),
    overS: round(spanMs / 1000, 1),
  };
}

/** The longest run of consecutive items of `xs` that pass `keep`. */
function longestRun<T>(xs: readonly T[], keep: (x: T) => boolean): T[] {
  let best: T[] = [];
  let run: T[] = [];
  for (const x of xs) {
    if (keep(x)) run.push(x);
    else run = [];
    if (run.length > best.length) best = run;
  }
  return [...best];
}

/** The probe's note for it: what the service answered at, and why that, not the limit, binds a client. */
export const servedBehindNote = (s: ServedBehind, sustainedRps: number): string =>
  `the service answered what its limit admitted at ${s.servedRps} req/s, below the limit's ${round(sustainedRps, 2)} req/s: admitted requests waited in line for it, ${round(s.fromMs / 1000, 2)} s rising to ${round(s.toMs / 1000, 2)} s over ${s.overS} s; a client paced above ${s.servedRps} req/s builds that line until its calls time out, so the recommendation is sized by it`;
