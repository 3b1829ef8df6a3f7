import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { RateLimitResult, Report } from '../../src/report/model.js';
import { renderJson } from '../../src/report/json.js';
import { FIXTURES, loadFixture, reverseKeys } from './helpers.js';

const TOP_LEVEL = [
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
  'untested',
];
const CHECK_KEYS = ['id', 'title', 'spec', 'level', 'status', 'message', 'duration_ms', 'evidence'];

describe.each(FIXTURES)('renderJson(report-%s)', (name) => {
  const report = loadFixture(name);
  const out = renderJson(report);

  it('round-trips to the same object', () => {
    expect(JSON.parse(out)).toStrictEqual(report);
  });

  it("keeps the contract's key order", () => {
    const parsed = JSON.parse(out) as Record<string, unknown> & { checks: Array<Record<string, unknown>> };
    expect(Object.keys(parsed)).toEqual(TOP_LEVEL);
    expect(Object.keys(parsed.summary as object)).toEqual(['passed', 'failed', 'warned', 'skipped', 'errored']);
    for (const c of parsed.checks) expect(Object.keys(c)).toEqual(CHECK_KEYS);
  });

  it('puts keys in that order even when the producer built its objects in another', () => {
    const scrambled = reverseKeys(report);
    expect(Object.keys(scrambled)[0]).toBe('untested');
    expect(renderJson(scrambled)).toBe(out);
  });

  it('is pretty-printed with a trailing newline', () => {
    expect(out.endsWith('}\n')).toBe(true);
    expect(out.split('\n')[1]).toBe(`  "schema": "ces-harness/report@1",`);
  });
});

it('keeps fields the contract does not name yet, after the named ones', () => {
  const report = { ...loadFixture('pass'), extra_field: 1 };
  const parsed = JSON.parse(renderJson(report)) as Record<string, unknown>;
  expect(Object.keys(parsed)).toEqual([...TOP_LEVEL, 'extra_field']);
});

it('writes null for a run without load and rate-limit stages', () => {
  const parsed = JSON.parse(renderJson({ ...loadFixture('pass'), load: null, rate_limit: null })) as Record<
    string,
    unknown
  >;
  expect(parsed.load).toBeNull();
  expect(parsed.rate_limit).toBeNull();
});

it("puts every rate_limit key the probe fills in at its place, whatever order the probe's estimate had", () => {
  const real = JSON.parse(readFileSync('test/fixtures/layout/report-real-run.json', 'utf8')) as Report;
  const rateLimit: RateLimitResult = {
    ...real.rate_limit!,
    proof_verdict: 'proven',
    ratelimit_headers: ['ratelimit'],
    advertised: { verdict: 'agrees', notes: [] } as unknown as NonNullable<RateLimitResult['advertised']>,
    limiter: { kind: 'bucket', rate_rps: 50, burst: 50 },
    limiter_evidence: ['a bucket'],
    reference_lines: [{ label: 'measured limit', rps: 50 }],
    fleet: null,
  };
  const report = { ...loadFixture('pass'), rate_limit: rateLimit };
  // The section's own keys only: what is inside them passes through as the probe made it.
  const reversed = Object.fromEntries(Object.entries(rateLimit).reverse()) as RateLimitResult;
  expect(renderJson({ ...report, rate_limit: reversed })).toBe(renderJson(report));
  // And at the place report.json has always had it: a key left off the order would trail the rest.
  expect(Object.keys((JSON.parse(renderJson(report)) as Report).rate_limit!)).toEqual([
    'endpoint',
    'observed_429',
    'sustained_rps',
    'burst',
    'scope',
    'retry_after_header',
    'recovery_s',
    'requests_sent',
    'requests_limited',
    'recommendation',
    'proof',
    'proof_verdict',
    'timeline',
    'notes',
    'limiting_status',
    'refill_s',
    'ratelimit_headers',
    'advertised',
    'duration_s',
    'partial',
    'limiter',
    'limiter_evidence',
    'reference_lines',
    'fleet',
  ]);
});
