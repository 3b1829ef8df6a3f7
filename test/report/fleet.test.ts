// The fleet part of the Rate limit section, in report.md, report.html and report.json, rendered
// from a fleet sized by the simulator (pure and seeded, so the same every run).

import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/build.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { RateLimitResult } from '../../src/report/model.js';
import { sizeFleet } from '../../src/ratelimit/fleet/size.js';
import { fleetSummaryLines } from '../../src/ratelimit/fleet/summary-lines.js';

const fleet = sizeFleet({
  estimate: { sustained_rps: 50, burst: 20, scope: 'shared', retry_after_header: 'truthful', latency_p95_ms: 4 },
  recommendation: { target_rps: 40, backoff: { base_ms: 40, cap_ms: 1_000, jitter: 'full', max_retries: 6 } },
  instances: 16,
})!;

const rateLimit: RateLimitResult = {
  endpoint: 'tokens.validate',
  observed_429: true,
  sustained_rps: 50,
  burst: 20,
  scope: 'shared',
  retry_after_header: 'truthful',
  recovery_s: 0.02,
  requests_sent: 900,
  requests_limited: 60,
  recommendation: {
    target_rps: 40,
    max_concurrency: 1,
    backoff: { base_ms: 40, cap_ms: 1_000, jitter: 'full', max_retries: 6 },
  },
  proof: null,
  fleet,
};
const report = (r: RateLimitResult) =>
  buildReport({
    version: 'test',
    target: { environment: 'sandbox', base_url: 'https://127.0.0.1:1' },
    startedAt: new Date(0),
    finishedAt: new Date(1_000),
    checks: [],
    rateLimit: r,
  });

describe('the fleet section', () => {
  it('report.md: the recommendation, the method and a row per policy and size', () => {
    const md = renderMarkdown(report(rateLimit));
    expect(md).toContain('### Fleet of 16 instances');
    expect(md).toMatch(
      /\*\*Fleet recommendation:\*\* per instance ≤ 2\.5 req\/s \(burst 1\), policy [a-z-]+; on 429 honour Retry-After/,
    );
    expect(md).toContain('| Instances | Policy | Goodput (req/s) | 429 rate |');
    // 5 policies × sizes 1, 4, 16.
    expect(md.split('\n').filter((l) => /^\| (1|4|16) \| [a-z-]+ \|/.test(l))).toHaveLength(15);
    expect(md).toContain('one limiter for the fleet');
  });

  it('report.html: goodput and 429 rate against fleet size, one line per policy, and the data table', () => {
    const html = renderHtml(report(rateLimit));
    for (const id of ['chart-fleet-goodput', 'chart-fleet-429']) {
      const chart = new RegExp(`<svg class="chart" id="${id}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';
      expect(chart.match(/<polyline /g), id).toHaveLength(5);
      expect(chart).toContain('data-points="3"');
    }
    expect(html).toContain('Fleet simulation data');
  });

  it('report.json: rate_limit.fleet with its keys in the contract order', () => {
    const json = JSON.parse(renderJson(report(rateLimit)));
    expect(Object.keys(json.rate_limit.fleet)).toEqual([
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
      'rows',
    ]);
    expect(Object.keys(json.rate_limit.fleet.rows[0])).toEqual([
      'instances',
      'policy',
      'goodput_rps',
      'rate_429',
      'p99_ms',
      'lost',
      'drained_s',
      'drain_lost',
    ]);
  });

  // The recommendation comes from the simulator, not from k6 across instances: every format says so
  // beside it, not only the method line further on.
  it('every format says beside the recommendation that it is simulated, with no k6 fleet run', () => {
    const md = renderMarkdown(report(rateLimit));
    expect(md).toMatch(/\*\*Fleet recommendation:\*\* per instance [^\n]* \(simulated, no k6 fleet run\)\.\n/);
    const html = renderHtml(report(rateLimit));
    expect(html).toMatch(
      /<strong>Fleet recommendation:<\/strong> per instance [^<]* \(simulated, no k6 fleet run\)\.<\/p>/,
    );
    const json = JSON.parse(renderJson(report(rateLimit)));
    expect(json.rate_limit.fleet.recommendation_basis).toBe('simulated, no k6 fleet run');
    expect(fleetSummaryLines(fleet)[0]).toMatch(/^fleet of 16: per instance .* \(simulated, no k6 fleet run\)$/);
  });

  it('with a k6 fleet run, the basis names it and its verdict instead', () => {
    const proven = {
      ...fleet,
      proof: { instances: 16, policy: 'p', offered_rps: 75, duration_s: 30, verdict: 'proven' as const, why: 'kept' },
    };
    const md = renderMarkdown(report({ ...rateLimit, fleet: proven }));
    expect(md).toContain('(simulated; k6 fleet run across 16 instances: proven).');
    expect(md).not.toContain('no k6 fleet run');
  });

  it('without --fleet, nothing of it appears anywhere', () => {
    const { fleet: _none, ...single } = rateLimit;
    expect(renderMarkdown(report(single))).not.toContain('Fleet');
    expect(renderHtml(report(single))).not.toContain('chart-fleet');
    expect(renderJson(report(single))).not.toContain('"fleet"');
    expect(fleetSummaryLines(undefined)).toEqual([]);
  });

  it('the terminal lines name the per-instance rate, the policy, the assumption and the simulated figures', () => {
    const lines = fleetSummaryLines(fleet);
    expect(lines[0]).toMatch(
      /^fleet of 16: per instance ≤ 2\.5 req\/s \(burst 1\), policy [a-z-]+, backoff 40–1000 ms, ≤ 6 retries, honour Retry-After \(simulated, no k6 fleet run\)$/,
    );
    expect(lines[1]).toMatch(/^ {2}assumption: the limit is shared/);
    expect(lines[2]).toMatch(
      /^ {2}simulated \(an assumed bucket of 50 req\/s, burst 20 \(no limiter was identified: .*\); 75 req\/s offered for 30 s\): goodput [\d.]+ req\/s/,
    );
  });
});
