// A drain that outran the service. A service that takes one request at a time (a single worker, or
// a process starved of CPU beside other work) queues what comes faster, refused requests too, and
// its limiter decides each when its turn comes: the limiter sees the requests at the rate the
// service takes them, not at the rate they were sent, so every time the probe read off its send
// stamps is wrong. The emulator's token bucket of 30/s, taken at 71 req/s beside k6 (CI ci-39a),
// passed 51 on the drain, came back "whole" as a window does, and was not identified; virtually,
// so did every service tried that took 125 req/s or fewer of the probe's 200.
//
// Told apart from a limiter that queues (nginx without nodelay): there, the refusals are answered at
// once, and only what it admits waits. Here the refusals wait in the same line.

import { median, round } from '../../toolkit/stats.js';
import { answeredRps } from '../intake.js';
import type { Sample } from '../types.js';

/** Answers at under this share of the rate they were sent at: the service did not keep up. */
const SERVED_SHARE = 0.8;
/** The probe goes on at this share of what the service took: its line stays empty. */
const BELOW_SERVED = 0.8;
/** Fewer requests, or a shorter drain, than these say nothing: one answer's jitter is the whole span. */
const MIN_REQUESTS = 20;
const MIN_SPAN_MS = 100;
/** No step in latency from one request to the next above this share of the whole rise: a line, not a stall. */
const STEP_SHARE = 0.25;
/** Latencies compared at the drain's two ends: medians of this many, so one late answer is not a line. */
const ENDS = 5;

/**
 * The latency of a line's first and last answers (`line` in order), ms: each the median of ENDS,
 * so one late answer is not a line. What a growing line is told by (here, and served-behind.ts).
 */
export function lineEndsMs(line: readonly Sample[]): { firstMs: number; lastMs: number } {
  const latency = (s: Sample) => s.doneMs - s.sentMs;
  return { firstMs: median(line.slice(0, ENDS).map(latency)), lastMs: median(line.slice(-ENDS).map(latency)) };
}

/** No single step in latency from one request to the next (`line` in order) is much of the whole rise: a line, not a stall. */
export function grewSmoothly(line: readonly Sample[], riseMs: number): boolean {
  const latencies = line.map((s) => s.doneMs - s.sentMs);
  const stepMs = Math.max(...latencies.slice(1).map((l, i) => l - latencies[i]!));
  return stepMs <= STEP_SHARE * riseMs;
}

export interface Outrun {
  /** The rate the drain was sent at, and the rate its answers came back at, req/s. */
  sentRps: number;
  servedRps: number;
  /** The rate the probe goes on at. */
  nextRps: number;
  /** From the drain's first request to its last answer, ms: the wait that lets a limit it met refill. */
  spanMs: number;
}

/**
 * Whether the drain's answers came back slower than it sent, each later than the one before, the
 * refusals as late as the acceptances: undefined when the service kept up (or it cannot be told).
 */
export function outrunOf(drain: readonly Sample[]): Outrun | undefined {
  const answered = drain
    .filter((s) => s.client === 'primary' && s.answer !== 'error')
    .sort((a, b) => a.sentMs - b.sentMs);
  if (answered.length < MIN_REQUESTS) return undefined;
  const sentSpanMs = answered.at(-1)!.sentMs - answered[0]!.sentMs;
  const servedRps = answeredRps(answered);
  if (sentSpanMs < MIN_SPAN_MS || servedRps === undefined) return undefined;
  const sentRps = ((answered.length - 1) * 1000) / sentSpanMs;
  if (servedRps >= SERVED_SHARE * sentRps) return undefined;
  const servedSpanMs = ((answered.length - 1) * 1000) / servedRps;
  // A line grows by what the service falls behind: at least half of that between the two ends.
  const latency = (s: Sample) => s.doneMs - s.sentMs;
  const { firstMs, lastMs } = lineEndsMs(answered);
  const riseMs = lastMs - firstMs;
  if (riseMs < 0.5 * (servedSpanMs - sentSpanMs)) return undefined;
  // A line grows a little with every request. A stalled probe, or refusals a gateway answers late,
  // make it in one step.
  if (!grewSmoothly(answered, riseMs)) return undefined;
  // A limiter that queues answers its refusals at once; a service that queues everything, late.
  const refused = answered.filter((s) => s.answer === 'limited');
  if (refused.length === 0 || median(refused.map(latency)) < 0.5 * lastMs) return undefined;
  // And what it admitted waited in the same line, later and later, at about the pace of the whole:
  // a gateway that answers only refusals later and later (a tarpit) decided every request when it
  // came, and what it admitted was timed right. Too few admitted to tell: not claimed.
  const accepted = answered.filter((s) => s.answer === 'accepted');
  if (accepted.length < 2 * ENDS) return undefined;
  const acceptedEnds = lineEndsMs(accepted);
  const acceptedRiseMs = acceptedEnds.lastMs - acceptedEnds.firstMs;
  if (acceptedRiseMs / (accepted.length - ENDS) < 0.5 * (riseMs / (answered.length - ENDS))) return undefined;
  const nextRps = round(BELOW_SERVED * servedRps, 1);
  return {
    sentRps: round(sentRps, 1),
    servedRps: round(servedRps, 1),
    nextRps,
    spanMs: answered.at(-1)!.doneMs - answered[0]!.sentMs,
  };
}

/**
 * The drain's requests timed when the limiter met them: as each answer left the service's line, the
 * quickest answer's latency before it, never before it was sent. The samples themselves, changed.
 */
export function retimedByAnswers(drain: Sample[]): Sample[] {
  const quickestMs = Math.min(...drain.map((s) => s.doneMs - s.sentMs));
  for (const s of drain) s.sentMs = Math.max(s.sentMs, s.doneMs - quickestMs);
  return drain;
}

/**
 * What the report says of it: drained again slower, the first drain timed by its answers (still
 * shut when drained again), or the second drain met no limit (`unmet`: what it sent, over how long).
 */
export function outrunNote(o: Outrun, how: 'again' | 'answers' | { requests: number; spanMs: number }): string {
  const what =
    how === 'again'
      ? `the probe drained again at ${o.nextRps} req/s and went on at that rate; a limit above ${o.nextRps} req/s was not tested`
      : how === 'answers'
        ? `drained again at ${o.nextRps} req/s it was still shut (a window longer than the drain), so the first drain was timed by its answers, and the probe went on at ${o.nextRps} req/s; a limit above ${o.nextRps} req/s was not tested`
        : `drained again at ${o.nextRps} req/s it met no limit (${how.requests} requests over ${round(how.spanMs / 1000, 1)} s, none refused), so the first drain was timed by its answers`;
  return (
    `the drain was sent at ${o.sentRps} req/s but answered at ${o.servedRps} req/s, each answer later than the one before and the refusals as late: ` +
    `the service (or this machine) took no more, and its limiter met the requests at that pace, not as they were sent; ${what}`
  );
}
