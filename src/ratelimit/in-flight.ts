// How many requests a paced probe keeps in flight. Little's law: to offer `rate` requests per
// second to a service that answers in `latency` seconds, about rate × latency are in flight at
// once. Quick answers need few (and the pacing, not this bound, sets the rate); two-second
// business answers at 200/s need 400, so a fixed 16 held the probe to 8/s and it never met a
// limit. The count is bounded: a client that opens hundreds of connections to one service is
// impolite, and what it could not reach at that bound is said, never read as the service's limit.

import { median } from '../toolkit/stats.js';

/** Never fewer: the connections a quick service's probe already used (pacing keeps most idle). */
export const MIN_IN_FLIGHT = 16;

/** Never more, and the probe's connection pool (HTTP/1.1: one request per connection at a time). */
export const MAX_IN_FLIGHT = 128;

// Headroom over the mean: answers vary, and a slot freed late must not hold the schedule back.
const HEADROOM = 1.25;

/**
 * Under this share of the rate it aimed at, a probe that met no limit proves little: the harness
 * (a loaded machine, slow answers), not the service, held its rate down, so that is not tested.
 */
export const MIN_REACH_SHARE = 0.5;

/** In flight for `rps` at `latencyMs`, within [MIN_IN_FLIGHT, cap]. */
export function inFlightFor(rps: number, latencyMs: number, cap = MAX_IN_FLIGHT): number {
  const needed = Math.ceil((rps * Math.max(latencyMs, 0) * HEADROOM) / 1000) + 1;
  return Math.min(cap, Math.max(MIN_IN_FLIGHT, needed));
}

/** The rate `inFlight` requests can offer when each takes `latencyMs` (Infinity for instant answers). */
export const reachableRps = (inFlight: number, latencyMs: number): number =>
  latencyMs > 0 ? (inFlight * 1000) / latencyMs : Infinity;

/**
 * Answers that came back while others waited, whose spacing is read as the service's pace: three
 * gaps, so that one stall's gap is not the median, and soon enough that a line of 10 req/s holds
 * about 60 when it is read (nine answers let Little's law fill it to 128 first).
 */
export const LINE_DEPARTURES = 4;

/**
 * The most requests in flight that a service answering one at a time at the pace its answers left
 * clears within `waitMs` (half the request timeout), never under MIN_IN_FLIGHT; undefined until
 * LINE_DEPARTURES answers came back while others were in flight (`departuresMs`, in order).
 * Little's law sizes the in-flight count by the latency, as if the latency did not grow with it.
 * A line's does (a pacer, a queue deeper than the probe, a single worker): each request more in
 * flight is one more place in it, the latency grows, Little's law asks for more, and the count ran to
 * its bound of 128. At 10 req/s those wait 12.8 s, past the default 10 s timeout: 147 of 255 answers
 * never came, and the probe read nothing (session 59). The pace is read from the answers' spacing,
 * not their count over time: a wait between phases, or pings sent one at a time, would read a pace
 * as slow as the probe sent, and hold back the next drain across a network (tried, session 59).
 * Elsewhere the cap is far above what Little's law asks: a service answering 200 a second clears
 * 1,000 in 5 s, and one slow for every request answers as fast as it is sent once under way.
 */
export function lineCapFor(departuresMs: readonly number[], waitMs: number): number | undefined {
  if (departuresMs.length < LINE_DEPARTURES) return undefined;
  const gapMs = median(departuresMs.slice(1).map((t, i) => t - departuresMs[i]!));
  if (!(gapMs > 0)) return undefined;
  return Math.max(MIN_IN_FLIGHT, Math.floor(waitMs / gapMs));
}
