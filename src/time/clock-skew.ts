// How far the service's clock is from ours, measured rather than assumed. Every answer tells the
// service's time twice over: the HTTP `Date` header (RFC 9110 §6.6.1) and, on the health check,
// the timestamp in its text (§4.2). Both are whole seconds, cut down from the instant the service
// read its clock, which lay somewhere in the request's window on our clock. So one reading says:
// the service's clock minus ours lies in [T − received, T + 1 − sent]. Readings at different
// sub-second phases cut that second down; the intersection of all of them is the measured skew,
// with its resolution as the width.
//
// The upper bound (how far AHEAD the service may be) decides the latest instant a token is
// certainly still valid, so it is kept tight: it assumes only that a timestamp never runs ahead
// of the clock it was read from. The lower bound gets READ_SLACK_S more: a service may round to the
// nearest second, or a server may serve a cached Date string a moment after the second turned.
//
// Readings that contradict each other (two backends behind one name with different clocks) cannot
// be intersected: then every reading's whole span stays possible (their hull), never a guess.
//
// Pure: no clock, no I/O.

import type { ExchangeWindow } from './expiry-edges.js';

/** The service's clock minus ours, seconds: certainly within [minS, maxS]. */
export interface SkewBounds {
  minS: number;
  maxS: number;
}

/** A timestamp read from an answer, epoch ms of the whole second it names, and which answer said it. */
export interface ClockReading extends ExchangeWindow {
  serviceMs: number;
}

/** A timestamp's second is cut down; a rounding or cached one may also be this much behind. */
export const READ_SLACK_S = 0.5;
/** Beyond this resolution the skew is refined with timed health checks (skewCheckAt). */
export const FINE_SKEW_S = 0.2;

/** How finely the readings pin the skew down: the width of the bounds, less the slack every one carries. */
export const resolutionOf = (b: SkewBounds): number => b.maxS - b.minS - READ_SLACK_S;

export function boundsOf(r: ClockReading): SkewBounds {
  return { minS: (r.serviceMs - r.receivedAt) / 1000 - READ_SLACK_S, maxS: (r.serviceMs + 1000 - r.sentAt) / 1000 };
}

/** The intersection of every reading, or their hull when they contradict each other; undefined without readings. */
export function measureSkew(readings: readonly ClockReading[]): SkewBounds | undefined {
  if (readings.length === 0) return undefined;
  const each = readings.map(boundsOf);
  const meet = { minS: Math.max(...each.map((b) => b.minS)), maxS: Math.min(...each.map((b) => b.maxS)) };
  if (meet.minS <= meet.maxS) return meet;
  return { minS: Math.min(...each.map((b) => b.minS)), maxS: Math.max(...each.map((b) => b.maxS)) };
}

/**
 * When (our clock, ms, not before `nowMs`) to send a request so that the service's clock crosses a
 * whole second at the middle of the current bounds: whichever second the answer names, half of
 * the uncertainty is ruled out. A bisection of the sub-second phase, one request per halving.
 */
export function skewCheckAt(bounds: SkewBounds, nowMs: number, latencyMs: number): number {
  const guessS = skewMidS(bounds);
  // The service reads its clock about half a round trip after we send.
  const lead = latencyMs / 2000;
  const crossingS = Math.ceil(nowMs / 1000 + guessS + lead) - guessS - lead;
  return crossingS * 1000;
}

/** The skew's best estimate, seconds: the middle of what the readings allow, before the slack. */
export const skewMidS = (b: SkewBounds): number => (b.minS + READ_SLACK_S + b.maxS) / 2;

/** "+4.00 s (± 0.05 s)": how a measured skew reads in a message. */
export function describeSkew(b: SkewBounds): string {
  const mid = skewMidS(b);
  return `${mid >= 0 ? '+' : ''}${mid.toFixed(2)} s (± ${(Math.max(0, resolutionOf(b)) / 2).toFixed(2)} s)`;
}

/** The service's time in an HTTP Date header, or undefined when there is none or it does not parse. */
export function httpDateMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  // A Date header names a whole second; anything else is not one we can bound a reading with.
  return Number.isFinite(ms) && ms % 1000 === 0 ? ms : undefined;
}
