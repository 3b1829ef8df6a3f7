// report.json: the machine-readable report. Keys follow the contract's order whatever order the
// producing stage built its objects in, so diffs between two runs' reports show only real changes.

import { orderedFleet } from './sections/fleet/json.js';
import type { CheckResult, Evidence, LoadResult, LoadScenarioResult, RateLimitResult, Report } from './model.js';

type Plain = Record<string, unknown>;

/** Copies `value` with `order` first; keys the contract does not name yet keep their place after them. */
export function orderKeys<T extends object>(value: T, order: readonly (keyof T & string)[]): T {
  const source = value as Plain;
  const out: Plain = {};
  for (const key of order) if (key in source) out[key] = source[key];
  for (const key of Object.keys(source)) if (!(key in out)) out[key] = source[key];
  return out as T;
}

const evidence = (e: Evidence): Evidence => orderKeys(e, ['request', 'status', 'note']);

const check = (c: CheckResult): CheckResult =>
  orderKeys({ ...c, evidence: c.evidence.map(evidence) }, [
    'id',
    'title',
    'spec',
    'level',
    'status',
    'message',
    'duration_ms',
    'evidence',
  ]);

const scenario = (s: LoadScenarioResult): LoadScenarioResult =>
  orderKeys(
    {
      ...s,
      latency_ms: orderKeys(s.latency_ms, ['p50', 'p95', 'p99', 'max', 'avg']),
      checks: orderKeys(s.checks, ['passed', 'failed']),
      thresholds: s.thresholds.map((t) => orderKeys(t, ['metric', 'expression', 'ok'])),
      ...(s.timeline ? { timeline: s.timeline.map((p) => orderKeys(p, ['t', 'requests', 'p95_ms'])) } : {}),
    },
    [
      'scenario',
      'requests',
      'rate_per_s',
      'latency_ms',
      'error_rate',
      'checks',
      'thresholds',
      'dropped_iterations',
      'duration_s',
      'timeline',
      'dashboards',
      'extra',
      'error',
    ],
  );

const load = (l: LoadResult): LoadResult =>
  orderKeys({ ...l, scenarios: l.scenarios.map(scenario) }, ['k6_version', 'run_id', 'scenarios', 'ok']);

function rateLimit(r: RateLimitResult): RateLimitResult {
  const rec = r.recommendation;
  return orderKeys(
    {
      ...r,
      recommendation:
        rec === null
          ? null
          : orderKeys({ ...rec, backoff: orderKeys(rec.backoff, ['base_ms', 'cap_ms', 'jitter', 'max_retries']) }, [
              'target_rps',
              'max_concurrency',
              'backoff',
            ]),
      ...(r.proof
        ? { proof: orderKeys(r.proof, ['rate_429', 'goodput_rps', 'lost_requests', 'refusals_began_s']) }
        : {}),
      ...(r.sustained_held
        ? { sustained_held: orderKeys(r.sustained_held, ['held_s', 'refused_rps', 'met_429_rps']) }
        : {}),
      ...(r.no_limit_up_to
        ? { no_limit_up_to: orderKeys(r.no_limit_up_to, ['rps', 'over_s', 'max_rps', 'tested']) }
        : {}),
      ...(r.proof_rounds
        ? {
            proof_rounds: r.proof_rounds.map((p) =>
              orderKeys(p, [
                'target_rps',
                'max_concurrency',
                'backoff_base_ms',
                'max_retries',
                'rate_429',
                'goodput_rps',
                'lost_requests',
                'refusals_began_s',
                'verdict',
                'why',
              ]),
            ),
          }
        : {}),
      ...(r.proof_horizon
        ? {
            proof_horizon: orderKeys(r.proof_horizon, [
              'proven_s',
              'covers_window_s',
              'longest_window_s',
              'not_tested',
            ]),
          }
        : {}),
      ...(r.timeline
        ? { timeline: r.timeline.map((p) => orderKeys(p, ['t', 'offered', 'accepted', 'limited', 'phase'])) }
        : {}),
      ...(r.fleet !== undefined ? { fleet: orderedFleet(r.fleet, orderKeys) } : {}),
    },
    [
      'endpoint',
      'observed_429',
      'sustained_rps',
      'sustained_precision',
      'sustained_announced',
      'sustained_held',
      'identified_with_rounds',
      'no_limit_up_to',
      'served_rps',
      'burst',
      'scope',
      'retry_after_header',
      'recovery_s',
      'requests_sent',
      'requests_limited',
      'recommendation',
      'proof',
      'proof_verdict',
      'proof_unproven',
      'proof_rounds',
      'proof_horizon',
      'timeline',
      'notes',
      'limiting_status',
      'refill_s',
      'ratelimit_headers',
      'advertised',
      'announced',
      'duration_s',
      'partial',
      'limiter',
      'limiters',
      'limiter_evidence',
      'reference_lines',
      'fleet',
    ],
  );
}

export function renderJson(report: Report): string {
  const ordered = orderKeys(
    {
      ...report,
      tool: orderKeys(report.tool, ['name', 'version']),
      target: orderKeys(report.target, ['environment', 'base_url', 'emulated', 'transport']),
      summary: orderKeys(report.summary, ['passed', 'failed', 'warned', 'skipped', 'errored']),
      checks: report.checks.map(check),
      load: report.load ? load(report.load) : null,
      rate_limit: report.rate_limit ? rateLimit(report.rate_limit) : null,
      untested: (report.untested ?? []).map((u) => orderKeys(u, ['stage', 'reason'])),
      verdict_reasons: report.verdict_reasons.map((r) => orderKeys(r, ['kind', 'subject', 'text'])),
    },
    [
      'schema',
      'tool',
      'target',
      'started_at',
      'finished_at',
      'verdict',
      'verdict_reasons',
      'summary',
      'checks',
      'load',
      'rate_limit',
      'client',
      'untested',
      'notes',
    ],
  );
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
