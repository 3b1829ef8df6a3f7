// From what the instances counted to the figures a fleet run is judged by. Pure, and the same for
// the simulator and for a k6 run, so the two are compared on one definition of each figure.

import type { InstanceTally } from './instance.js';

export interface FleetFigures {
  /** Logical calls that succeeded per second of the run. */
  goodput_rps: number;
  /** Share of the requests sent that the limit refused. */
  rate_429: number;
  /** 99th percentile of a successful logical call's time from arrival to success (queueing included), ms. */
  p99_ms: number | null;
  sent: number;
  refused: number;
  succeeded: number;
  lost: number;
  /** Attempts the instances refused themselves (adaptive throttling). */
  throttled: number;
}

/** The nearest-rank percentile of unsorted values (sorted in place); null for none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))]!;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `latencies` (every successful call's, ms) is sorted in place. */
export function fleetFigures(tallies: readonly InstanceTally[], latencies: number[], durationS: number): FleetFigures {
  let sent = 0;
  let refused = 0;
  let succeeded = 0;
  let lost = 0;
  let throttled = 0;
  for (const t of tallies) {
    sent += t.sent;
    refused += t.refused;
    succeeded += t.succeeded;
    lost += t.lost;
    throttled += t.throttled;
  }
  const p99 = percentile(latencies, 99);
  return {
    goodput_rps: round(succeeded / durationS, 2),
    rate_429: sent > 0 ? round(refused / sent, 4) : 0,
    p99_ms: p99 === null ? null : Math.round(p99),
    sent,
    refused,
    succeeded,
    lost,
    throttled,
  };
}
