// junit.xml: one testcase per check, for CI test tabs (GitHub, GitLab, Jenkins). JUnit knows pass,
// failure, error and skipped only, so a `warn` is a passing testcase whose warning rides in
// <system-out>: it must show up without turning the CI run red, exactly like the verdict.
// Built as an element tree and written by common/xml.ts, never by concatenation: messages quote response
// bodies.

import { leftOutText, skippedText } from './sections/scope/words.js';
import { evidenceLine, runSeconds, scenarioLine, thresholdText } from './common/format.js';
import {
  specLabel,
  type CheckResult,
  type LoadResult,
  type RateLimitResult,
  type Report,
  type Untested,
} from './model.js';
import { checkFamily, junitClassname } from './common/junit-classname.js';
import { renderXml, xmlChars, type XmlElement } from './common/xml.js';
import { proofText, rateLimitFacts, recommendationText } from './sections/rate-limit/words.js';
import { clientProperties } from './sections/client/junit.js';
import { sinceLastRunCases } from './sections/since/junit.js';

// Parsers fold newlines in attribute values into spaces; folding them here keeps the value predictable.
const oneLine = (text: string): string => xmlChars(text).replace(/\s*[\r\n]+\s*/g, ' ');

const seconds = (ms: number): string => ((Number.isFinite(ms) ? ms : 0) / 1000).toFixed(3);

function testcase(name: string, classname: string, time: string, children: XmlElement[] = []): XmlElement {
  return {
    name: 'testcase',
    attributes: { name: oneLine(name), classname: oneLine(classname), time },
    content: children,
  };
}

/** <failure> or <error>: its message and type in attributes, the whole story as text. */
const problem = (kind: 'failure' | 'error', message: string, type: string, text: string): XmlElement => ({
  name: kind,
  attributes: { message: oneLine(message), type: oneLine(type) },
  content: text,
});

const output = (text: string): XmlElement[] => (text === '' ? [] : [{ name: 'system-out', content: text }]);

function checkCase(c: CheckResult): XmlElement {
  const tc = (...children: XmlElement[]) =>
    testcase(`${c.id}: ${c.title}`, junitClassname('conformance', checkFamily(c.id)), seconds(c.duration_ms), children);
  const detail = [c.message, ...c.evidence.map(evidenceLine)].filter((line) => line !== '').join('\n');
  switch (c.status) {
    case 'fail':
      return tc(problem('failure', c.message, c.level, detail));
    case 'error':
      return tc(problem('error', c.message, c.level, detail));
    case 'skip':
      return tc({ name: 'skipped', attributes: { message: oneLine(c.message) } });
    case 'warn':
      return tc(...output(`warning (${c.level} check, ${specLabel(c.spec)}): ${detail}`));
    case 'pass':
      return tc(...output(detail));
    default:
      // Only a malformed report gets here; losing the testcase would make the counts lie.
      return tc(problem('error', c.message, 'report', `unknown status ${String(c.status)}\n${detail}`));
  }
}

function loadCases(load: LoadResult): XmlElement[] {
  const cases: XmlElement[] = [];
  for (const s of load.scenarios) {
    const classname = junitClassname('load', s.scenario);
    if (s.error)
      cases.push(
        testcase(`${s.scenario}: runs`, classname, seconds(0), [problem('error', s.error, 'scenario', s.error)]),
      );
    for (const t of s.thresholds) {
      const outcome = t.ok
        ? output(scenarioLine(s))
        : [problem('failure', `threshold ${thresholdText(t)} crossed`, 'threshold', scenarioLine(s))];
      cases.push(testcase(`${s.scenario}: ${thresholdText(t)}`, classname, seconds(0), outcome));
    }
  }
  // k6 can fail a run for reasons no threshold names; the exit code says fail, so JUnit must too.
  const explained = cases.some((c) => has(c, 'failure') || has(c, 'error'));
  if (!load.ok && !explained) {
    const failure = problem(
      'failure',
      'k6 reported the run as failed',
      'k6',
      `k6 ${load.k6_version}, run ${load.run_id}`,
    );
    cases.push(testcase('k6 run', 'load', seconds(0), [failure]));
  }
  return cases;
}

function rateLimitCase(r: RateLimitResult): XmlElement {
  const lines = [
    `Recommendation: ${recommendationText(r)}`,
    proofText(r) === null ? null : `Proof run: ${proofText(r)}`,
    ...rateLimitFacts(r).map(([label, value]) => `${label}: ${value}`),
    ...(r.notes ?? []),
  ];
  return testcase(
    `${r.endpoint}: rate-limit sizing`,
    'rate-limit',
    seconds(0),
    output(lines.filter((l) => l !== null).join('\n')),
  );
}

// A stage that could not test is an error testcase: CI test tabs must show the run as broken.
function untestedCase(u: Untested): XmlElement {
  return testcase(`${u.stage}: could not test`, 'untested', seconds(0), [
    problem('error', u.reason, 'untested', u.reason),
  ]);
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

const has = (testcase: XmlElement, child: string): boolean =>
  typeof testcase.content !== 'string' && (testcase.content ?? []).some((c) => c.name === child);

function countCases(cases: readonly XmlElement[]): Counts {
  return {
    tests: cases.length,
    failures: cases.filter((c) => has(c, 'failure')).length,
    errors: cases.filter((c) => has(c, 'error')).length,
    skipped: cases.filter((c) => has(c, 'skipped')).length,
  };
}

const countAttrs = (c: Counts) => ({ tests: c.tests, failures: c.failures, errors: c.errors, skipped: c.skipped });

/** The conformance suite leads with its run's timestamp and properties. */
interface SuiteHead {
  timestamp: string;
  properties: XmlElement;
}

function suite(
  name: string,
  cases: XmlElement[],
  timeS: number,
  head?: SuiteHead,
): { node: XmlElement; counts: Counts } {
  const counts = countCases(cases);
  const attributes = {
    name,
    ...countAttrs(counts),
    time: timeS.toFixed(3),
    ...(head ? { timestamp: oneLine(head.timestamp) } : {}),
  };
  return { node: { name: 'testsuite', attributes, content: [...(head ? [head.properties] : []), ...cases] }, counts };
}

function properties(report: Report): XmlElement {
  const entries: Array<[string, string]> = [
    ['verdict', report.verdict],
    ['target.environment', report.target.environment],
    ['target.base_url', report.target.base_url],
    ['tool.version', report.tool.version],
    ...(report.notes ?? []).map((n): [string, string] => ['note', n]),
    ...(report.checks_left_out ? [['left_out', leftOutText(report.checks_left_out)] as [string, string]] : []),
    ...[skippedText(report.checks)].flatMap((t): Array<[string, string]> => (t ? [['skipped', t]] : [])),
    ...clientProperties(report.client),
  ];
  return {
    name: 'properties',
    content: entries.map(([name, value]) => ({ name: 'property', attributes: { name, value: oneLine(value) } })),
  };
}

export function renderJunit(report: Report): string {
  const checksMs = report.checks.reduce((sum, c) => sum + (Number.isFinite(c.duration_ms) ? c.duration_ms : 0), 0);
  const suites = [
    suite('conformance', report.checks.map(checkCase), checksMs / 1000, {
      timestamp: report.started_at,
      properties: properties(report),
    }),
    ...(report.load ? [suite('load', loadCases(report.load), 0)] : []),
    ...(report.rate_limit ? [suite('rate-limit', [rateLimitCase(report.rate_limit)], 0)] : []),
    ...((report.untested ?? []).length > 0 ? [suite('untested', (report.untested ?? []).map(untestedCase), 0)] : []),
    ...(report.since_last_run ? [suite('since-last-run', sinceLastRunCases(report.since_last_run), 0)] : []),
  ];
  const total = suites.reduce<Counts>(
    (sum, s) => ({
      tests: sum.tests + s.counts.tests,
      failures: sum.failures + s.counts.failures,
      errors: sum.errors + s.counts.errors,
      skipped: sum.skipped + s.counts.skipped,
    }),
    { tests: 0, failures: 0, errors: 0, skipped: 0 },
  );
  return renderXml({
    name: 'testsuites',
    attributes: { name: 'ces-harness', ...countAttrs(total), time: (runSeconds(report) ?? checksMs / 1000).toFixed(3) },
    content: suites.map((s) => s.node),
  });
}
