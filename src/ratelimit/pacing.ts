// Open-model pacing: request k leaves at t0 + k/rate whatever the answers do, which is how an
// arrival-rate load generator offers load and what a limiter's rate is defined against. The harness
// sends each request itself (undici, through the ServiceClient) so it sees each answer the moment
// it arrives and can stop on the very answer that settles a question.

import type { Clock } from '../time/clock.js';

export interface PaceOptions {
  clock: Clock;
  /** Requests per second, read before every send: a phase may change it mid-stream. */
  rate: () => number;
  /**
   * At most this many requests in flight, read before every send (a probe sizes it from the
   * latency it measures, in-flight.ts). More would only queue in the client's connection pool
   * and blur the moment each request reaches the limiter.
   */
  maxInFlight: () => number;
  /** Read before every send; true ends the stream (what is in flight still completes). */
  done: () => boolean;
  /** Sends one request and records its answer; must not throw. */
  send: () => Promise<void>;
  signal?: AbortSignal;
  /**
   * After a stall, send the requests it held up as fast as maxInFlight allows, so the rate over the
   * whole stream stays `rate()`. Off for sizing a limit (a catch-up burst would be read as the
   * limit's burst); on for `check`'s burst, which judges "no limit at this rate" by the rate it
   * offered over the whole run and would otherwise blame a busy machine's stall on the service.
   */
  catchUp?: boolean;
}

/**
 * Runs a paced stream until `done()`, then waits for what is in flight; resolves with the clock's
 * time when sending stopped (the end of the offered load, without the wait for the last answers).
 * A late timer delays the schedule instead of compressing it, so the offered rate never exceeds
 * `rate()` by more than a timer's jitter; with `catchUp` it compresses it instead (see there).
 */
export async function pace(opts: PaceOptions): Promise<number> {
  const { clock, signal } = opts;
  const inFlight = new Set<Promise<void>>();
  let next = clock.now();
  // Bounded by done(), which every caller ties to a request count, a deadline and the signal.
  while (!opts.done() && !signal?.aborted) {
    const wait = next - clock.now();
    if (wait > 0) {
      // Timers have millisecond resolution; round up so a request never leaves early.
      await clock.sleep(Math.ceil(wait), signal);
      continue;
    }
    if (inFlight.size >= opts.maxInFlight()) {
      await Promise.race(inFlight);
      continue;
    }
    const tracked: Promise<void> = opts.send().finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    const interval = 1000 / Math.max(opts.rate(), 1e-3);
    const now = clock.now();
    // Behind schedule by more than an interval (a stalled event loop): start the schedule again
    // from now rather than sending the missed requests back to back, unless told to catch up.
    next = next + interval < now && !opts.catchUp ? now + interval : next + interval;
    // Let the request get onto the wire before the next timer is armed.
    await Promise.resolve();
  }
  const stoppedMs = clock.now();
  await Promise.all(inFlight);
  return stoppedMs;
}
