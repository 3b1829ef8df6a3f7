// The report's `rate_limit` section from the probe's estimate, the recommendation and its proof.
// Pure, so the contract's shape is decided in one place and tested without a server.

import type { RateLimitResult } from '../report/model.js';
import { fleetSummaryLines } from './fleet/summary-lines.js';
import { describeLimiter } from './limiters/index.js';
import { advertisedText } from '../report/format.js';
import type { Estimate, Proof, Recommendation } from './types.js';

export function toRateLimitResult(estimate: Estimate, recommendation: Recommendation | null, proof: Proof | null, proofNotes: string[] = []): RateLimitResult {
  const notes = [...estimate.notes];
  if (recommendation) notes.push(...recommendation.why.map((w) => `recommendation: ${w}`));
  else if (estimate.sustained_rps === null) notes.push('no recommendation: the probe did not measure a sustained rate to size a client by');
  notes.push(...proofNotes);
  return {
    endpoint: estimate.endpoint,
    // §7: only a 429 is the limit's answer; a limit that refuses with 503 is reported (with its
    // figures) but not as an observed 429.
    observed_429: estimate.limiting_status === 429,
    sustained_rps: estimate.sustained_rps,
    burst: estimate.burst,
    scope: estimate.scope,
    retry_after_header: estimate.retry_after_header,
    recovery_s: estimate.recovery_s,
    requests_sent: estimate.requests_sent,
    requests_limited: estimate.requests_limited,
    recommendation: recommendation
      ? { target_rps: recommendation.target_rps, max_concurrency: recommendation.max_concurrency, backoff: recommendation.backoff }
      : null,
    proof,
    timeline: estimate.timeline,
    notes,
    limiting_status: estimate.limiting_status,
    refill_s: estimate.refill_s,
    ...(estimate.ratelimit_headers ? { ratelimit_headers: estimate.ratelimit_headers.names } : {}),
    ...(estimate.advertised ? { advertised: estimate.advertised } : {}),
    duration_s: estimate.duration_s,
    partial: estimate.partial,
    limiter: estimate.limiter,
    limiter_evidence: estimate.limiter_evidence,
    reference_lines: referenceLines(estimate, recommendation),
  };
}

/** The chart's reference lines, requests per second: the identified limit's sustained rate and the recommended rate. */
function referenceLines(estimate: Estimate, recommendation: Recommendation | null): Array<{ label: string; rps: number }> {
  const lines: Array<{ label: string; rps: number }> = [];
  if (estimate.sustained_rps !== null) lines.push({ label: estimate.limiter ? `limit (${describeLimiter(estimate.limiter)})` : 'measured limit', rps: estimate.sustained_rps });
  if (recommendation) lines.push({ label: 'recommended rate', rps: recommendation.target_rps });
  return lines;
}

/** The few terminal lines a `ratelimit` run ends with: estimate, recommendation, proof. */
export function summaryLines(r: RateLimitResult): string[] {
  const lines: string[] = [];
  const status = r.limiting_status ?? null;
  if (status === null) lines.push(`rate limit on ${r.endpoint}: none observed (${r.requests_sent} requests sent)`);
  else {
    const conformance = status === 429 ? '429' : `${status}, non-conformant: §7 wants 429`;
    lines.push(
      `rate limit on ${r.endpoint} (${conformance}): sustained ${r.sustained_rps ?? '?'} req/s, burst ${r.burst ?? '?'}, ` +
        `recovery ${r.recovery_s ?? '?'} s, Retry-After ${r.retry_after_header}, scope ${r.scope}`,
    );
  }
  if (r.limiter) lines.push(`  limiter: ${describeLimiter(r.limiter)}`);
  if (r.advertised) lines.push(`  advertised: ${advertisedText(r.advertised)}`);
  const share = r.requests_sent > 0 ? ` (${((r.requests_limited / r.requests_sent) * 100).toFixed(1)} %)` : '';
  lines.push(`  probe: ${r.requests_sent} requests, ${r.requests_limited} limited${share}, ${r.duration_s ?? '?'} s${r.partial ? ', partial' : ''}`);
  const rec = r.recommendation;
  if (rec) {
    const b = rec.backoff;
    lines.push(
      `recommend: ≤ ${rec.target_rps} req/s, ≤ ${rec.max_concurrency} in flight; on 429 honour Retry-After, else backoff ${b.base_ms}–${b.cap_ms} ms ${b.jitter} jitter, ≤ ${b.max_retries} retries`,
    );
  } else lines.push('recommend: nothing (no sustained rate measured)');
  const p = r.proof;
  if (p) lines.push(`proof (k6 at ${rec?.target_rps ?? '?'} req/s): ${(p.rate_429 * 100).toFixed(2)} % 429, goodput ${p.goodput_rps} req/s, ${p.lost_requests} lost`);
  lines.push(...fleetSummaryLines(r.fleet));
  return lines;
}
