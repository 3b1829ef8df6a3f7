// The words and table cells of the rate-limit fleet section, shared by report.md and report.html
// so the two say the same thing.

import { NO_VALUE, formatNumber, formatPercent } from '../../common/format.js';
import type { FleetResult, FleetRow } from '../../model.js';

export const FLEET_HEADERS = [
  'Instances',
  'Policy',
  'Goodput (req/s)',
  '429 rate',
  'p99 call (ms)',
  'Lost',
  'Backlog drained (s)',
] as const;
export const FLEET_ALIGN = ['r', 'l', 'r', 'r', 'r', 'r', 'r'] as const;

export function fleetRowCells(r: FleetRow): string[] {
  return [
    String(r.instances),
    r.policy,
    formatNumber(r.goodput_rps, 2),
    formatPercent(r.rate_429),
    r.p99_ms === null ? NO_VALUE : formatNumber(r.p99_ms),
    String(r.lost + r.drain_lost),
    r.drained_s === null ? 'not drained' : formatNumber(r.drained_s, 1),
  ];
}

export function fleetHeading(f: FleetResult): string {
  return `Fleet of ${f.instances} instance${f.instances === 1 ? '' : 's'}`;
}

/** "per instance ≤ 0.8 req/s (burst 1), client-bucket; backoff 40–2000 ms, ≤ 6 retries, honour Retry-After". */
export function fleetRecommendationText(f: FleetResult): string {
  const rec = f.recommendation;
  if (rec === null && f.proof?.verdict === 'not proven')
    return `none: NOT PROVEN, the chosen ${f.proof.policy} failed its k6 fleet run`;
  if (rec === null) return 'none: no policy could be chosen';
  const b = rec.backoff;
  return (
    `per instance ≤ ${rec.per_instance_rps} req/s (burst ${rec.per_instance_burst}), policy ${rec.policy}; ` +
    `on 429 ${rec.honour_retry_after ? 'honour Retry-After, then ' : ''}back off ${b.base_ms}–${b.cap_ms} ms, ≤ ${b.max_retries} retries`
  );
}

/**
 * What the recommendation rests on, said beside it in every format: the simulator alone, unless a
 * k6 fleet run (--fleet-proof) put the choice to the test across instances.
 */
export function fleetBasisText(f: FleetResult): string {
  const p = f.proof;
  if (p === undefined) return 'simulated, no k6 fleet run';
  return `simulated; k6 fleet run across ${p.instances} instances: ${p.verdict}`;
}

/** How the candidates were put to the test, one sentence. */
export function fleetMethodText(f: FleetResult): string {
  return (
    `Simulated against ${f.limiter} (${f.sharing === 'shared' ? 'one limiter for the fleet' : 'a limiter per instance'}): ` +
    `the fleet offered ${f.offered_rps} req/s for ${f.duration_s} s, and apart from that worked off a backlog of ${f.backlog} calls; ` +
    `round trip ${f.latency_ms} ms, seed ${f.seed}. Assumption: ${f.assumption}.`
  );
}

/** The k6 fleet run of the choice, one sentence; null when none was asked for (simulated only). */
export function fleetProofText(f: FleetResult): string | null {
  const p = f.proof;
  if (p === undefined) return null;
  const figures =
    p.rate_429 === undefined
      ? ''
      : `: goodput ${formatNumber(p.goodput_rps ?? 0, 2)} req/s, ${formatPercent(p.rate_429)} 429, ${p.lost ?? 0} lost`;
  return `k6 fleet proof (${p.instances} instances, ${p.policy}, ${p.offered_rps} req/s offered for ${p.duration_s} s)${figures}: ${p.verdict} (${p.why})`;
}
