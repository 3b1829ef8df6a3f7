// The terminal's closing lines for `--fleet N`: what each instance should do, and what the chosen
// policy did in the simulation at N, beside the sharing assumption it rests on.

import { fleetBasisText, fleetProofText, fleetRecommendationText } from '../../report/sections/fleet/words.js';
import type { FleetResult } from '../../report/model.js';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

export function fleetSummaryLines(fleet: FleetResult | null | undefined): string[] {
  if (fleet === undefined) return [];
  if (fleet === null) return ['fleet: not sized (no proven single-client rate to share out)'];
  const rec = fleet.recommendation;
  const proof = fleetProofText(fleet);
  if (rec === null)
    return [`fleet of ${fleet.instances}: ${fleetRecommendationText(fleet)}`, ...(proof ? [`  ${proof}`] : [])];
  const row = fleet.rows.find((r) => r.instances === fleet.instances && r.policy === rec.policy);
  const b = rec.backoff;
  return [
    `fleet of ${fleet.instances}: per instance ≤ ${rec.per_instance_rps} req/s (burst ${rec.per_instance_burst}), policy ${rec.policy}, ` +
      `backoff ${b.base_ms}–${b.cap_ms} ms, ≤ ${b.max_retries} retries${rec.honour_retry_after ? ', honour Retry-After' : ''} (${fleetBasisText(fleet)})`,
    `  assumption: ${fleet.assumption}`,
    ...(row
      ? [
          `  simulated (${fleet.limiter}; ${fleet.offered_rps} req/s offered for ${fleet.duration_s} s): goodput ${row.goodput_rps} req/s, ` +
            `${pct(row.rate_429)} 429, p99 ${row.p99_ms ?? '?'} ms, ${row.lost} lost; a backlog of ${fleet.backlog} drained in ${row.drained_s ?? '>600'} s`,
        ]
      : []),
    ...(proof ? [`  ${proof}`] : []),
  ];
}
