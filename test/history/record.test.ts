// The record of a full run (checks, k6 scenarios, rate-limit sizing), from the committed fixture
// report: what it keeps, and that a k6 or rate-limit figure that moves is reported as such.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/history/compare.js';
import { observations, toRecord } from '../../src/history/record.js';
import type { Report } from '../../src/report/model.js';

const fixture = JSON.parse(readFileSync('test/fixtures/report-pass.json', 'utf8')) as Report;

function withFigures(i: number, p95: number, burst: number): Report {
  const r = structuredClone(fixture);
  r.started_at = `2026-11-0${i}T00:00:00Z`;
  r.load!.scenarios[0]!.latency_ms.p95 = p95;
  r.rate_limit!.burst = burst;
  return r;
}

describe('toRecord', () => {
  it('keeps the k6 figures, the rate-limit figures and facts, and the versions; no message or evidence', () => {
    const record = toRecord(fixture);
    const scenario = fixture.load!.scenarios[0]!;
    expect(record.load?.[scenario.scenario]).toEqual({
      p50_ms: scenario.latency_ms.p50,
      p95_ms: scenario.latency_ms.p95,
      p99_ms: scenario.latency_ms.p99,
      error_rate: scenario.error_rate,
      rate_per_s: scenario.rate_per_s,
    });
    expect(record.rate_limit).toMatchObject({
      sustained_rps: 50,
      // What cutover sets production's limit against (--sandbox-from-history).
      target_rps: fixture.rate_limit!.recommendation!.target_rps,
      burst: 50,
      scope: 'per-client',
      retry_after: 'truthful',
      recovery_s: 1,
    });
    expect(record.k6_version).toBe(fixture.load!.k6_version);
    const text = JSON.stringify(record);
    for (const c of fixture.checks) expect(text).not.toContain(c.message);
    expect(observations(record).map((o) => `${o.kind} ${o.subject} ${o.name}`)).toEqual(
      expect.arrayContaining([
        `latency k6 ${scenario.scenario} p95_ms`,
        'rate_limit rate limit burst',
        'fact rate limit scope',
        'fact run k6 version',
        'fact run ces-harness version',
      ]),
    );
  });

  it('reports a k6 p95 that tripled and a burst that halved, and nothing for steady ones', () => {
    const past = [1, 2, 3, 4, 5].map((i) => toRecord(withFigures(i, 20 + i, 50)));
    expect(compareRuns(toRecord(withFigures(6, 23, 50)), past, 10)).toEqual([]);
    const changes = compareRuns(toRecord(withFigures(6, 70, 25)), past, 10);
    expect(changes.map((c) => `${c.kind} ${c.subject} ${c.name}`)).toEqual([
      `latency k6 ${fixture.load!.scenarios[0]!.scenario} p95_ms`,
      'rate_limit rate limit burst',
    ]);
  });

  it('keeps no "unknown" scope or Retry-After: a run that could not tell is no change', () => {
    const r = structuredClone(fixture);
    r.rate_limit!.scope = 'unknown';
    r.rate_limit!.retry_after_header = 'unknown';
    const record = toRecord(r);
    expect(record.rate_limit).not.toHaveProperty('scope');
    expect(record.rate_limit).not.toHaveProperty('retry_after');
    expect(compareRuns(record, [toRecord(fixture)], 10)).toEqual([]);
  });
  it('never records an announced, unproven rate as the sustained rate measured: it is kept as the fact it is', () => {
    const r = structuredClone(fixture);
    // The probe measured the 30 req/s second; the headline is the announced minute's 10 req/s.
    r.rate_limit!.sustained_rps = 10;
    r.rate_limit!.sustained_announced = {
      limit: 600,
      window_s: 60,
      source_header: 'RateLimit-Policy',
      agrees: null,
      measured_rps: 30,
    };
    const record = toRecord(r);
    expect(record.rate_limit).not.toHaveProperty('sustained_rps');
    expect(record.rate_limit).toMatchObject({
      sustained_announced: '600 per 60 s (RateLimit-Policy), announced, not proven',
    });
    // A run that proved the minute (sustained 10 req/s measured) beside runs that took it on
    // trust: no change of rate, and the runs measured are compared among themselves.
    const proven = structuredClone(fixture);
    proven.rate_limit!.sustained_rps = 10;
    const past = [1, 2, 3].map((i) => ({ ...record, started_at: `2026-11-0${i}T00:00:00Z` }));
    expect(compareRuns(toRecord(proven), past, 10).filter((c) => c.name.startsWith('sustained'))).toEqual([]);
  });

  it('compares a rate k6 rounds held only with rates held: never with a measured one, a halved hold still flagged', () => {
    const held = (rps: number) => {
      const r = structuredClone(fixture);
      r.rate_limit!.sustained_rps = rps;
      r.rate_limit!.sustained_held = { held_s: 120, refused_rps: rps * 1.5 };
      return toRecord(r);
    };
    const measured = (rps: number) => {
      const r = structuredClone(fixture);
      r.rate_limit!.sustained_rps = rps;
      return toRecord(r);
    };
    const dated = (records: ReturnType<typeof toRecord>[]) =>
      records.map((x, i) => ({ ...x, started_at: `2026-11-0${i + 1}T00:00:00Z` }));
    const sustained = (now: ReturnType<typeof toRecord>, past: ReturnType<typeof toRecord>[]) =>
      compareRuns(now, dated(past), 10).filter((c) => c.name.startsWith('sustained'));
    expect(held(26).rate_limit).toMatchObject({ sustained_held_rps: 26, target_held_rps: expect.any(Number) });
    expect(held(26).rate_limit).not.toHaveProperty('sustained_rps');
    expect(held(26).rate_limit).not.toHaveProperty('target_rps');
    // A floor of 26 found by bisection beside runs that measured 50 (and the reverse): no change of limit.
    expect(sustained(held(26), [measured(50), measured(50), measured(50)])).toEqual([]);
    expect(sustained(measured(50), [held(26), held(26), held(26)])).toEqual([]);
    // Held runs among themselves: a hold halved is a change.
    expect(sustained(held(20), [held(40), held(40), held(40)])).toEqual([
      expect.objectContaining({ name: 'sustained_held_rps' }),
    ]);
    // The rate recommended below a hold goes with it: compared with the rates recommended below holds.
    const targets = (now: ReturnType<typeof toRecord>, past: ReturnType<typeof toRecord>[]) =>
      compareRuns(now, dated(past), 10).filter((c) => c.name.startsWith('target'));
    const recommending = (record: ReturnType<typeof toRecord>, rps: number) => ({
      ...record,
      rate_limit: Object.fromEntries(
        Object.entries(record.rate_limit!).map(([k, v]) => [k, k.startsWith('target') ? rps : v]),
      ),
    });
    expect(
      targets(
        recommending(held(26), 23),
        [measured(50), measured(50), measured(50)].map((m) => recommending(m, 40)),
      ),
    ).toEqual([]);
    expect(
      targets(
        recommending(held(20), 18),
        [1, 2, 3].map(() => recommending(held(40), 36)),
      ),
    ).toEqual([expect.objectContaining({ name: 'target_held_rps' })]);
  });
});
