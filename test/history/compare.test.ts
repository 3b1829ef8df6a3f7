// The comparison, the noise band and the policy as pure functions: records in, changes out.

import { describe, expect, it } from 'vitest';
import { comparison, compareRuns } from '../../src/history/compare.js';
import { noiseBand, outside } from '../../src/history/noise.js';
import { applyPolicy, outcomeOf } from '../../src/history/policy.js';
import { remember } from '../../src/history/remember.js';
import { DEFAULT_REGRESSION_POLICY } from '../../src/report/sections/since/model.js';
import { steadyRecord, steadyRuns } from './records.js';

const names = (findings: ReturnType<typeof compareRuns>) => findings.map((f) => `${f.kind} ${f.subject} ${f.name}`);

describe('noise band', () => {
  it('is the median ± 4 × 1.4826 × MAD, and one slow run among ten does not widen it', () => {
    const band = noiseBand([10, 11, 10, 12, 11, 10, 11, 10, 11, 200], { absFloor: 0, relFloor: 0 })!;
    expect(band.median).toBe(11);
    // MAD of these values is 1 (a standard deviation would be about 60: the 200 barely moves a median).
    expect(band.high).toBeCloseTo(11 + 4 * 1.4826 * 1, 6);
    expect(outside(20, band, 'up')).toBe('up');
    expect(outside(5, band, 'up')).toBeUndefined();
    expect(outside(5, band, 'both')).toBe('down');
  });

  it('never narrows below its floors, and judges nothing from fewer than 3 runs', () => {
    expect(noiseBand([10, 10, 10], { absFloor: 20, relFloor: 1 })!.high).toBe(30);
    expect(noiseBand([100, 100, 100], { absFloor: 20, relFloor: 1 })!.high).toBe(200);
    expect(noiseBand([10, 10], { absFloor: 0, relFloor: 0 })).toBeUndefined();
  });
});

describe('compareRuns', () => {
  it('finds nothing between steady runs (a skip ↔ pass of token.ledger judges nothing)', () => {
    const past = steadyRuns(8);
    expect(compareRuns(steadyRecord(8), past, 10)).toEqual([]);
  });

  it('reports a check that broke, with the fact behind it', () => {
    const now = { ...steadyRecord(8, { typeStatus: 'fail' }) };
    now.checks['token.type-bearer']!.facts = { token_type: '"bearer"' };
    const found = compareRuns(now, steadyRuns(8), 10);
    expect(names(found)).toEqual(['check token.type-bearer status', 'fact token.type-bearer token_type']);
    expect(found[0]).toMatchObject({
      before: 'pass',
      after: 'fail',
      regression: true,
      text: 'token.type-bearer: pass → fail',
    });
    expect(found[1]!.text).toBe('token.type-bearer: token_type "Bearer" → "bearer"');
  });

  it('reports a fixed check as a change for the better', () => {
    const past = [...steadyRuns(3), steadyRecord(3, { typeStatus: 'fail' })];
    const [fixed] = compareRuns(steadyRecord(4), past, 10);
    expect(fixed).toMatchObject({ kind: 'check', before: 'fail', after: 'pass', regression: false });
  });

  it('the fact that changed back as its check was fixed is for the better too, so `fact: fail` does not fail the repaired run', () => {
    const broken = steadyRecord(3, { typeStatus: 'fail' });
    broken.checks['token.type-bearer']!.facts = { token_type: '"bearer"' };
    const found = compareRuns(steadyRecord(4), [...steadyRuns(3), broken], 10);
    expect(found.map((f) => `${f.kind} ${f.regression}`)).toEqual(['check false', 'fact false']);
    expect(outcomeOf(applyPolicy(found, { ...DEFAULT_REGRESSION_POLICY, fact: 'fail' }))).toBe('none');
  });

  it('flags a latency outside the band of the last N runs, and only upwards', () => {
    expect(names(compareRuns(steadyRecord(8, { latency: 400 }), steadyRuns(8), 10))).toEqual([
      'latency business.valid-token-accepted latency_ms',
    ]);
    expect(compareRuns(steadyRecord(8, { latency: 5 }), steadyRuns(8), 10)).toEqual([]);
    // Within the floor (a doubling and 50 ms for this one-sample figure): noise.
    expect(compareRuns(steadyRecord(8, { latency: 70 }), steadyRuns(8), 10)).toEqual([]);
    // A busy runner (CI land37): one answer of 31.9 ms against a dozen; a real slowdown still shows.
    const quick = Array.from({ length: 6 }, (_, i) => steadyRecord(i, { latency: 11 + (i % 3) }));
    expect(compareRuns(steadyRecord(6, { latency: 31.9 }), quick, 10)).toEqual([]);
    expect(names(compareRuns(steadyRecord(6, { latency: 80 }), quick, 10))).toEqual([
      'latency business.valid-token-accepted latency_ms',
    ]);
  });

  it('flags a halved rate limit, and a doubled one', () => {
    expect(names(compareRuns(steadyRecord(8, { accepted: 30 }), steadyRuns(8), 10))).toEqual([
      'rate_limit ratelimit.limit-enforced accepted_before_limit',
    ]);
    expect(names(compareRuns(steadyRecord(8, { accepted: 120 }), steadyRuns(8), 10))).toEqual([
      'rate_limit ratelimit.limit-enforced accepted_before_limit',
    ]);
  });

  it('after the upgrade that made the burst wait out a quiet second, the counts stored before it are not compared with the new ones', () => {
    // Before, a quick machine's earlier checks left the bucket part-drained: 50 stored; now 66 from a
    // full one. Those older runs measured something else under the same name, so no warning follows.
    const older = Array.from({ length: 5 }, (_, i) => steadyRecord(i, { accepted: 50, quiet: null }));
    const now = steadyRecord(5, { accepted: 66 });
    const { findings, notCompared } = comparison(now, older, 10);
    expect(names(findings)).toEqual([]);
    expect(notCompared.map((n) => n.text)).toEqual([
      expect.stringMatching(
        /^ratelimit\.limit-enforced: accepted_before_limit 66 not compared: .*0 of the last 5 runs .*every one stored before the burst waited out a quiet second\)$/,
      ),
    ]);
    // Three runs measured the new way are enough to judge again, and a halved limit is flagged.
    const mixed = [...older, ...Array.from({ length: 3 }, (_, i) => steadyRecord(5 + i, { accepted: 66 }))];
    expect(names(compareRuns(steadyRecord(9, { accepted: 66 }), mixed, 10))).toEqual([]);
    expect(names(compareRuns(steadyRecord(9, { accepted: 33 }), mixed, 10))).toEqual([
      'rate_limit ratelimit.limit-enforced accepted_before_limit',
    ]);
  });

  it('judges figures from the last N runs only', () => {
    // Slow long ago, fast lately: against the last 5, 40 ms is normal; against all, 400 ms was.
    const past = [...Array.from({ length: 10 }, (_, i) => steadyRecord(i, { latency: 400 })), ...steadyRuns(5)];
    expect(compareRuns(steadyRecord(20, { latency: 41 }), past, 5)).toEqual([]);
    expect(names(compareRuns(steadyRecord(20, { latency: 400 }), past, 5))).toEqual([
      'latency business.valid-token-accepted latency_ms',
    ]);
  });
});

describe('policy', () => {
  it('warns by default, fails where `regressions:` says fail, and never for the better', () => {
    const now = steadyRecord(8, { typeStatus: 'fail', latency: 400 });
    const found = compareRuns(now, steadyRuns(8), 10);
    expect(outcomeOf(applyPolicy(found, DEFAULT_REGRESSION_POLICY))).toBe('warn');
    const strict = applyPolicy(found, { ...DEFAULT_REGRESSION_POLICY, latency: 'fail' });
    expect(strict.map((c) => `${c.action} ${c.kind}`)).toEqual(['fail latency', 'warn check']);
    expect(outcomeOf(strict)).toBe('fail');
    const better = applyPolicy(
      compareRuns(steadyRecord(5), [...steadyRuns(3), steadyRecord(3, { typeStatus: 'fail' })], 10),
      { ...DEFAULT_REGRESSION_POLICY, check: 'fail' },
    );
    expect(outcomeOf(better)).toBe('none');
  });
});

describe('remember', () => {
  const report = (base_url = 'https://sandbox.example') => ({
    schema: 'ces-harness/report@1' as const,
    tool: { name: 'ces-harness' as const, version: '0.1.0' },
    target: { environment: 'sandbox', base_url },
    started_at: '2026-11-23T10:00:00Z',
    finished_at: '2026-11-23T10:00:05Z',
    verdict: 'pass' as const,
    verdict_reasons: [],
    summary: { passed: 1, failed: 0, warned: 0, skipped: 0, errored: 0 },
    checks: [
      {
        id: 'token.type-bearer',
        title: 't',
        spec: '2',
        level: 'must' as const,
        status: 'pass' as const,
        message: 'token_type "Bearer"',
        duration_ms: 1,
        evidence: [],
        facts: { token_type: '"Bearer"' },
      },
    ],
    load: null,
    rate_limit: null,
    untested: [],
  });

  it('says "no history yet" on the first run of a target, and compares only runs of the same target', () => {
    const first = remember(
      report(),
      [steadyRecord(0, { base_url: 'https://other.example' })],
      DEFAULT_REGRESSION_POLICY,
    );
    expect(first.report.since_last_run).toMatchObject({
      history: 'none',
      changes: [],
      outcome: 'none',
      runs_compared: 0,
    });
    expect(first.report.trends).toBeUndefined();
    const second = remember(report(), steadyRuns(4), DEFAULT_REGRESSION_POLICY);
    expect(second.report.since_last_run).toMatchObject({ history: 'compared', runs_compared: 4, changes: [] });
    expect(second.report.trends?.verdicts).toHaveLength(5);
  });

  it('keeps no message, evidence or secret in the record', () => {
    const { record } = remember(report(), [], DEFAULT_REGRESSION_POLICY);
    expect(JSON.stringify(record)).not.toContain('message');
    expect(record.checks['token.type-bearer']).toEqual({ status: 'pass', facts: { token_type: '"Bearer"' } });
  });
});

describe('remember: a tampered history file', () => {
  it('shows a stored value with terminal escapes as printable text', () => {
    const past = steadyRuns(3);
    past[2]!.checks['token.type-bearer']!.facts = { token_type: '"\u001b[31mBearer"' };
    const report = remember(
      {
        schema: 'ces-harness/report@1',
        tool: { name: 'ces-harness', version: '0.1.0' },
        target: { environment: 'sandbox', base_url: 'https://sandbox.example' },
        started_at: 'x',
        finished_at: 'x',
        verdict: 'pass',
        verdict_reasons: [],
        summary: { passed: 1, failed: 0, warned: 0, skipped: 0, errored: 0 },
        checks: [
          {
            id: 'token.type-bearer',
            title: 't',
            spec: '2',
            level: 'must',
            status: 'pass',
            message: 'm',
            duration_ms: 1,
            evidence: [],
            facts: { token_type: '"Bearer"' },
          },
        ],
        load: null,
        rate_limit: null,
        untested: [],
      },
      past,
      DEFAULT_REGRESSION_POLICY,
    ).report;
    const [change] = report.since_last_run!.changes;
    expect(report.since_last_run!.changes).toHaveLength(1);
    expect(String(change!.before)).not.toContain('\u001b');
    expect(change!.text).not.toContain('\u001b');
  });
});
