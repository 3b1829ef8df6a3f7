import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/junit.js';
import type { CheckResult, Report } from '../../src/report/model.js';
import { FIXTURES, XSS, loadFixture } from './helpers.js';

interface Problem {
  message?: string;
  type?: string;
  '#text'?: string;
}
interface TestCase {
  name: string;
  classname: string;
  time: string;
  failure?: Problem;
  error?: Problem;
  skipped?: { message?: string };
  'system-out'?: string;
}
type CountKey = 'tests' | 'failures' | 'errors' | 'skipped';
type Suite = Record<CountKey | 'name' | 'time', string> & { testcase?: TestCase[] };
interface Parsed {
  testsuites: Record<CountKey | 'name' | 'time', string> & { testsuite: Suite[] };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  isArray: (tag) => tag === 'testsuite' || tag === 'testcase' || tag === 'property',
});

function parse(xml: string): Parsed {
  expect(XMLValidator.validate(xml)).toBe(true);
  return parser.parse(xml) as Parsed;
}

const suiteNamed = (parsed: Parsed, name: string): Suite | undefined =>
  parsed.testsuites.testsuite.find((s) => s.name === name);
const cases = (suite: Suite | undefined): TestCase[] => suite?.testcase ?? [];

describe.each(FIXTURES)('renderJunit(report-%s)', (name) => {
  const report = loadFixture(name);
  const xml = renderJunit(report);
  const parsed = parse(xml);
  const conformance = suiteNamed(parsed, 'conformance');

  it('starts with an XML declaration', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  });

  it('has one testcase per check, named "<id>: <title>" and classed by check family', () => {
    const tcs = cases(conformance);
    expect(tcs.map((t) => t.name)).toEqual(report.checks.map((c) => `${c.id}: ${c.title}`));
    expect(tcs.map((t) => t.classname)).toEqual(report.checks.map((c) => `conformance-${c.id.split('.')[0]}`));
    expect(tcs[0]?.time).toBe(((report.checks[0]?.duration_ms ?? 0) / 1000).toFixed(3));
  });

  it('has no dot in any classname, so Jenkins and GitLab do not split it into package and class', () => {
    const all = parsed.testsuites.testsuite.flatMap((suite) => cases(suite).map((t) => t.classname));
    expect(all.length).toBeGreaterThan(report.checks.length);
    expect(all.filter((c) => c.includes('.'))).toEqual([]);
  });

  it('counts failures, errors and skips exactly as the summary does', () => {
    const s = report.summary;
    expect(conformance?.tests).toBe(String(report.checks.length));
    expect(conformance?.failures).toBe(String(s.failed));
    expect(conformance?.errors).toBe(String(s.errored));
    expect(conformance?.skipped).toBe(String(s.skipped));
    const tcs = cases(conformance);
    expect(tcs.filter((t) => t.failure)).toHaveLength(s.failed);
    expect(tcs.filter((t) => t.error)).toHaveLength(s.errored);
    expect(tcs.filter((t) => t.skipped)).toHaveLength(s.skipped);
  });

  it('adds the suites up in <testsuites>', () => {
    const all = parsed.testsuites;
    expect(all.name).toBe('ces-harness');
    for (const key of ['tests', 'failures', 'errors', 'skipped'] as const) {
      const sum = all.testsuite.reduce((n, suite) => n + Number(suite[key]), 0);
      expect(all[key]).toBe(String(sum));
    }
  });

  it('carries the message and evidence of a failure, the reason of a skip, and a warning in system-out', () => {
    report.checks.forEach((c, i) => {
      const tc = cases(conformance)[i];
      if (c.status === 'fail' || c.status === 'error') {
        const problem = c.status === 'fail' ? tc?.failure : tc?.error;
        expect(problem?.message).toBe(c.message);
        expect(problem?.type).toBe(c.level);
        for (const e of c.evidence) expect(problem?.['#text']).toContain(e.request);
      }
      if (c.status === 'skip') expect(tc?.skipped?.message).toBe(c.message);
      if (c.status === 'warn') {
        expect(tc?.failure).toBeUndefined();
        expect(tc?.['system-out']).toMatch(/^warning \(should check/);
      }
    });
  });

  it('has a load suite with a testcase per threshold, failing exactly where the threshold failed', () => {
    const load = suiteNamed(parsed, 'load');
    const thresholds = report.load?.scenarios.flatMap((s) => s.thresholds.map((t) => ({ s, t }))) ?? [];
    expect(cases(load)).toHaveLength(thresholds.length);
    thresholds.forEach(({ s, t }, i) => {
      const tc = cases(load)[i];
      expect(tc?.name).toBe(`${s.scenario}: ${t.metric} ${t.expression}`);
      expect(Boolean(tc?.failure)).toBe(!t.ok);
    });
  });

  it('has a passing rate-limit testcase carrying the recommendation', () => {
    const [tc] = cases(suiteNamed(parsed, 'rate-limit'));
    expect(tc?.name).toBe('business.evaluation: rate-limit sizing');
    expect(tc?.failure).toBeUndefined();
    expect(tc?.['system-out']).toContain('Recommendation: send at most 40.0/s');
  });
});

describe('renderJunit escaping', () => {
  const nasty: Partial<CheckResult> = {
    id: 'tricky<&>"\'',
    title: 'Prüfung — 日本語 "quoted" ]]> done',
    message: `403 body ]]><![CDATA[ & ${XSS} 'single'`,
    status: 'fail',
    level: 'must',
    evidence: [{ request: 'POST /tokens?a=1&b=<2>', status: 403, note: 'said "no" ]]>' }],
  };
  const report: Report = { ...loadFixture('fail'), checks: [{ ...loadFixture('fail').checks[0]!, ...nasty }] };
  const xml = renderJunit(report);
  const tc = cases(suiteNamed(parse(xml), 'conformance'))[0];

  it('round-trips markup characters and non-ASCII text unchanged', () => {
    expect(tc?.name).toBe(`${nasty.id}: ${nasty.title}`);
    expect(tc?.failure?.message).toBe(nasty.message);
    expect(tc?.failure?.['#text']).toContain('POST /tokens?a=1&b=<2> → 403 — said "no" ]]>');
  });

  it('leaves no raw markup from the report in the file', () => {
    expect(xml).not.toContain(']]>');
    expect(xml).not.toContain('<img');
    expect(xml).not.toContain('<![CDATA[');
    expect(xml).toContain('日本語');
  });

  it('replaces characters XML 1.0 cannot carry instead of writing an unparseable file', () => {
    const bad = renderJunit({
      ...report,
      checks: [{ ...report.checks[0]!, message: 'bell \u0007 nul \u0000 lone \ud800 end' }],
    });
    const failure = cases(suiteNamed(parse(bad), 'conformance'))[0]?.failure;
    expect(failure?.message).toBe('bell \ufffd nul \ufffd lone \ufffd end');
  });

  it('folds a multi-line message onto one line in the message attribute, and keeps every line in the text', () => {
    const out = renderJunit({
      ...report,
      checks: [{ ...report.checks[0]!, message: 'first line\n  second line\n\nthird', evidence: [] }],
    });
    const failure = cases(suiteNamed(parse(out), 'conformance'))[0]?.failure;
    expect(failure?.message).toBe('first line second line third');
    expect(failure?.['#text']).toBe('first line\n  second line\n\nthird');
  });

  it('does not turn a message of "true" into a bare attribute', () => {
    const out = renderJunit({ ...report, checks: [{ ...report.checks[0]!, message: 'true' }] });
    expect(out).toContain('message="true"');
  });
});

describe('renderJunit load edge cases', () => {
  const base = loadFixture('fail');
  const load = base.load!;

  it('reports a scenario that could not run as an error testcase', () => {
    const report: Report = {
      ...base,
      load: { ...load, scenarios: [{ ...load.scenarios[0]!, thresholds: [], error: 'k6 exited 107: script error' }] },
    };
    const tcs = cases(suiteNamed(parse(renderJunit(report)), 'load'));
    expect(tcs).toHaveLength(1);
    expect(tcs[0]?.error?.message).toBe('k6 exited 107: script error');
  });

  it('still fails when k6 failed the run without naming a threshold', () => {
    const scenarios = load.scenarios.map((s) => ({ ...s, thresholds: s.thresholds.map((t) => ({ ...t, ok: true })) }));
    const tcs = cases(suiteNamed(parse(renderJunit({ ...base, load: { ...load, scenarios, ok: false } })), 'load'));
    expect(tcs.filter((t) => t.failure).map((t) => t.name)).toEqual(['k6 run']);
  });

  it('has only the conformance suite when load and rate limit did not run', () => {
    const parsed = parse(renderJunit({ ...base, load: null, rate_limit: null, untested: [] }));
    expect(parsed.testsuites.testsuite.map((s) => s.name)).toEqual(['conformance']);
  });
});

describe('renderJunit untested stages', () => {
  it('turns each stage that could not test into an error testcase, so CI shows the run as broken', () => {
    const report = loadFixture('fail');
    const parsed = parse(renderJunit({ ...report, untested: [{ stage: 'load', reason: 'k6 was not found' }] }));
    const suite = parsed.testsuites.testsuite.find((s) => s.name === 'untested');
    expect(suite?.errors).toBe('1');
    expect(JSON.stringify(suite)).toContain('k6 was not found');
  });
});
