import { describe, expect, it } from 'vitest';
import { REPORT_SCHEMA, summarize, verdictOf, verdictReasonsOf } from '../../src/report/model.js';
import { FIXTURES, loadFixture } from './helpers.js';

// The renderer tests are only as good as the fixtures: they must be reports a real run could produce.
describe.each(FIXTURES)('fixture report-%s.json', (name) => {
  const report = loadFixture(name);

  it('is internally consistent: summary and verdict follow from the checks and load', () => {
    expect(report.schema).toBe(REPORT_SCHEMA);
    expect(report.summary).toEqual(summarize(report.checks));
    expect(report.verdict).toBe(verdictOf(report.checks, report.load));
    expect(report.verdict).toBe(name);
    expect(report.verdict_reasons).toEqual(verdictReasonsOf(report.checks, report.load, report.untested));
  });

  it('gives every skip a reason and shows tokens only as fingerprints', () => {
    for (const c of report.checks.filter((c) => c.status === 'skip')) expect(c.message.length).toBeGreaterThan(10);
    const text = JSON.stringify(report);
    for (const m of text.matchAll(/tk_\w*/g)) expect(m[0]).toMatch(/^tk_[0-9a-f]{8}$/);
    // Long runs of token alphabet, except k6 metric names: words joined by underscores
    // (logical_call_duration_token_per_call, tls_seen_suite_TLS_AES_128_GCM_SHA256).
    const metricName = /^[A-Za-z][a-z]*(?:_[A-Za-z0-9]+)+$|^[a-z]+(?:_[a-z0-9]+)*_[A-Z0-9_]+$/;
    expect(
      [...text.matchAll(/[A-Za-z0-9+/=_-]{32,}/g)].map((m) => m[0]).filter((run) => !metricName.test(run)),
    ).toEqual([]);
  });

  it('covers what the renderers must handle', () => {
    expect(report.load?.scenarios.length).toBe(2);
    expect(report.load?.scenarios.every((s) => (s.timeline?.length ?? 0) > 1)).toBe(true);
    expect(report.rate_limit?.timeline?.length).toBeGreaterThan(1);
    expect(report.rate_limit?.recommendation).not.toBeNull();
    expect(new Set(report.checks.map((c) => c.status))).toEqual(
      name === 'fail' ? new Set(['pass', 'fail', 'warn', 'skip', 'error']) : new Set(['pass', 'warn', 'skip']),
    );
  });
});

it('the fail fixture has exactly one failed threshold', () => {
  const thresholds = loadFixture('fail').load?.scenarios.flatMap((s) => s.thresholds) ?? [];
  expect(thresholds.filter((t) => !t.ok)).toHaveLength(1);
});
