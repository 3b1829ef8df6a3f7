// How many requests a paced probe keeps in flight. Little's law: to offer `rate` requests per
// second to a service that answers in `latency` seconds, about rate × latency are in flight at
// once. Quick answers need few (and the pacing, not this bound, sets the rate); two-second
// business answers at 200/s need 400, so a fixed 16 held the probe to 8/s and it never met a
// limit. The count is bounded: a client that opens hundreds of connections to one service is
// impolite, and what it could not reach at that bound is said, never read as the service's limit.

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
