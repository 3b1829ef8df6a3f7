// From what the instances counted to the figures a fleet run is judged by. Pure, and the same for
// the simulator and for a k6 run, so the two are compared on one definition of each figure.

import { percentile, round } from '../../toolkit/stats.js';
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

/** `latencies`: every successful call's, ms. */
export function fleetFigures(
  tallies: readonly InstanceTally[],
  latencies: readonly number[],
  durationS: number,
): FleetFigures {
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
