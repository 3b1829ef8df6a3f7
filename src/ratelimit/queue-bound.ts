// What a queueing limiter (limiters/queue.ts: nginx without `nodelay`) costs a client that follows
// the recommendation, as a bound the report states. A request admitted while the last one admitted
// is still waiting leaves the queue 1 / rate after it (its excess is one more); admitted once that
// one has left, it waits at most 1 / rate. So its wait is at most 1 / rate for each request of the
// unbroken chain of admitted ones still out before it, itself included: with at most C in flight,
// C / rate, whatever the client's pacing does (a pacer catching up after a stall sends together
// every request it is behind, as far as C allows). Paced below the rate and on time, it waits none.

import { queueDelayMs, type QueueModel } from './limiters/index.js';

/** The longest a request waits in `queue` with at most `inFlight` requests out, ms (never more than the queue's own longest). */
export function queueWaitBoundMs(queue: QueueModel, inFlight: number): number {
  return Math.min(queueDelayMs(queue), (Math.max(0, inFlight) / queue.rate_rps) * 1000);
}

/**
 * The answers' p95 without the queue's own wait: the slowest answers the probe saw, at the queue's
 * full, waited its longest wait (queueDelayMs) on top of the time the request itself takes.
 */
export function queueFreeLatencyMs(latencyP95Ms: number | null, queue: QueueModel): number | null {
  return latencyP95Ms === null ? null : Math.max(0, Math.round(latencyP95Ms - queueDelayMs(queue)));
}

/**
 * The same bound for a limit that delays without refusing (probe/queued-pace.ts), its depth unknown:
 * each request out before it waits one turn of the service's pace at most.
 */
export function lineDelayLine(servedRps: number, targetRps: number, inFlight: number): string {
  return `line: at ${targetRps} req/s and at most ${inFlight} in flight, the service's line adds at most ${Math.ceil((inFlight / servedRps) * 1000)} ms to a request (a client that offers more than ${servedRps} req/s waits longer and longer)`;
}

/** The recommendation's line about the queue: "at 8 req/s and at most 2 in flight, the queue adds at most 200 ms". */
export function queueDelayLine(queue: QueueModel, targetRps: number, inFlight: number): string {
  const boundMs = Math.ceil(queueWaitBoundMs(queue, inFlight));
  const full = Math.round(queueDelayMs(queue));
  const adds = boundMs > 0 ? `the queue adds at most ${boundMs} ms` : 'the queue adds no wait';
  return `queue: at ${targetRps} req/s and at most ${inFlight} in flight, ${adds} to a request (a client that offers more waits up to ${full} ms, then is refused)`;
}
