// The committed report fixtures and a history record built from them meet the published schemas,
// and the schemas are strict where the contract is fixed.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toRecord } from '../../src/history/record.js';
import { verdictReasonsOf, type Report } from '../../src/report/model.js';
import { projectRoot } from '../k6/support.js';
import { FIXTURES, loadFixture } from './helpers.js';
import { expectValidReport, validateHistory, validateReport } from './schema.js';

describe.each(FIXTURES)('fixture report-%s.json', (name) => {
  it('meets schema/report.schema.json', () => expectValidReport(loadFixture(name)));
  it('gives a history record that meets schema/history.schema.json', () => {
    expect(validateHistory(JSON.parse(JSON.stringify(toRecord(loadFixture(name)))))).toBe(true);
  });
});

describe('where the contract is fixed, the schema refuses what breaks it', () => {
  const fixture = () => JSON.parse(JSON.stringify(loadFixture('fail'))) as Record<string, any>;
  it.each<[string, (r: Record<string, any>) => void]>([
    ['another schema id', (r) => (r.schema = 'ces-harness/report@2')],
    ['an unknown verdict', (r) => (r.verdict = 'flaky')],
    ['a summary count missing', (r) => delete r.summary.errored],
    ['an extra summary count', (r) => (r.summary.unknown = 0)],
    ['a negative count', (r) => (r.summary.passed = -1)],
    ['a check status outside the enum', (r) => (r.checks[0].status = 'passed')],
    ['a check level outside the enum', (r) => (r.checks[0].level = 'may')],
    ['a check without its id', (r) => delete r.checks[0].id],
    ['untested missing', (r) => delete r.untested],
    ['verdict_reasons missing', (r) => delete r.verdict_reasons],
    ['a started_at that is no time', (r) => (r.started_at = 'yesterday')],
  ])('%s', (_, breakIt) => {
    const report = fixture();
    expect(validateReport(report)).toBe(true);
    breakIt(report);
    expect(validateReport(report)).toBe(false);
  });

  it('takes how far a probe that met no limit looked (no_limit_up_to), and refuses it without its rate', () => {
    const report = fixture();
    report.rate_limit.no_limit_up_to = { rps: 187.3, over_s: 2.1, max_rps: 200, tested: true };
    expect(validateReport(report)).toBe(true);
    delete report.rate_limit.no_limit_up_to.rps;
    expect(validateReport(report)).toBe(false);
    report.rate_limit.no_limit_up_to = { rps: 41.6, over_s: 7.2, max_rps: 200, tested: 'no' };
    expect(validateReport(report)).toBe(false);
  });

  it('is open where sections evolve: a new key in a section or at the top is accepted', () => {
    const report = fixture();
    report.load.scenarios[0].new_figure = 1;
    report.rate_limit.new_section = { any: 'thing' };
    report.checks[0].new_field = true;
    report.coming_later = [];
    expect(validateReport(report)).toBe(true);
  });
});

// test/fixtures/report-invalid/*.json: reports a CI step must never be handed as valid, each with
// the one line why and where the schema refuses it. Each is otherwise a report a run could write:
// with its verdict and reasons recomputed the way the harness does (verdictReasonsOf), it validates.
const INVALID = join(projectRoot, 'test', 'fixtures', 'report-invalid');
const invalid = readdirSync(INVALID)
  .filter((f) => f.endsWith('.json'))
  .map((file) => ({
    file,
    ...(JSON.parse(readFileSync(join(INVALID, file), 'utf8')) as { why: string; rejected_at: string; report: Report }),
  }));

describe('the invalid report examples', () => {
  it('are there, one per rule the verdict keeps', () => expect(invalid.length).toBeGreaterThanOrEqual(7));

  it.each(invalid)('$file is rejected at "$rejected_at": $why', ({ report, rejected_at }) => {
    expect(validateReport(report)).toBe(false);
    expect((validateReport.errors ?? []).map((e) => e.instancePath)).toContain(rejected_at);
  });

  it.each(invalid)('$file with the verdict the harness would give is valid', ({ report }) => {
    const reasons = verdictReasonsOf(report.checks, report.load, report.untested);
    expectValidReport({ ...report, verdict: reasons.length ? 'fail' : 'pass', verdict_reasons: reasons });
  });
});
