// report.json's rate_limit.fleet with its keys in the contract's order (see ../../json.ts), whatever
// order the sizing built them in.

import type { FleetResult } from '../../model.js';
import { fleetBasisText } from './words.js';

/** report/json.ts's orderKeys, passed in: importing it would make that file and this one a cycle. */
type OrderKeys = <T extends object>(value: T, order: readonly (keyof T & string)[]) => T;

export function orderedFleet(f: FleetResult | null, orderKeys: OrderKeys): FleetResult | null {
  if (f === null) return null;
  return orderKeys(
    {
      ...f,
      // Derived, not stored: report.json says what the recommendation rests on as the other formats do.
      recommendation_basis: fleetBasisText(f),
      recommendation:
        f.recommendation &&
        orderKeys(
          { ...f.recommendation, backoff: orderKeys(f.recommendation.backoff, ['base_ms', 'cap_ms', 'max_retries']) },
          ['policy', 'per_instance_rps', 'per_instance_burst', 'backoff', 'honour_retry_after', 'why'],
        ),
      rows: f.rows.map((r) =>
        orderKeys(r, ['instances', 'policy', 'goodput_rps', 'rate_429', 'p99_ms', 'lost', 'drained_s', 'drain_lost']),
      ),
    },
    [
      'instances',
      'limiter',
      'sharing',
      'assumption',
      'offered_rps',
      'duration_s',
      'backlog',
      'latency_ms',
      'seed',
      'recommendation',
      'recommendation_basis',
      'proof',
      'rows',
    ],
  );
}
