// The committed report fixtures and a history record built from them meet the published schemas,
// and the schemas are strict where the contract is fixed.

import { describe, expect, it } from 'vitest';
import { toRecord } from '../../src/history/record.js';
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
    ['a started_at that is no time', (r) => (r.started_at = 'yesterday')],
  ])('%s', (_, breakIt) => {
    const report = fixture();
    expect(validateReport(report)).toBe(true);
    breakIt(report);
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
