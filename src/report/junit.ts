// junit.xml: one testcase per check, for CI test tabs (GitHub, GitLab, Jenkins). JUnit knows pass,
// failure, error and skipped only, so a `warn` is a passing testcase whose warning rides in
// <system-out>: it must show up without turning the CI run red, exactly like the verdict.
// Built with XMLBuilder, never by concatenation: messages quote response bodies.

import { XMLBuilder } from 'fast-xml-parser';
import { evidenceLine, proofText, rateLimitFacts, recommendationText, runSeconds, scenarioLine, thresholdText } from './format.js';
import { specLabel, type CheckResult, type LoadResult, type RateLimitResult, type Report, type Untested } from './model.js';

type XmlNode = Record<string, unknown>;

// XML 1.0 cannot carry most control characters or lone surrogates, not even as references. A quoted
// response body may hold them, and a single one would make the whole file unparseable.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export const xmlText = (text: string): string => String(text).replace(NOT_XML_CHAR, '\uFFFD');

// Parsers fold newlines in attribute values into spaces; folding them here keeps the value predictable.
const xmlAttr = (text: string): string => xmlText(text).replace(/\s*[\r\n]+\s*/g, ' ');

const seconds = (ms: number): string => ((Number.isFinite(ms) ? ms : 0) / 1000).toFixed(3);

const withOutput = (node: XmlNode, text: string): XmlNode => (text === '' ? node : { ...node, 'system-out': xmlText(text) });

function checkCase(c: CheckResult): XmlNode {
  const node: XmlNode = {
    '@_name': xmlAttr(`${c.id}: ${c.title}`),
    '@_classname': xmlAttr(`ces-harness.conformance.${specLabel(c.spec)}`),
    '@_time': seconds(c.duration_ms),
  };
  const detail = [c.message, ...c.evidence.map(evidenceLine)].filter((line) => line !== '').join('\n');
  const problem = { '@_message': xmlAttr(c.message), '@_type': xmlAttr(c.level), '#text': xmlText(detail) };
  switch (c.status) {
    case 'fail':
      return { ...node, failure: problem };
    case 'error':
      return { ...node, error: problem };
    case 'skip':
      return { ...node, skipped: { '@_message': xmlAttr(c.message) } };
    case 'warn':
      return withOutput(node, `warning (${c.level} check, ${specLabel(c.spec)}): ${detail}`);
    case 'pass':
      return withOutput(node, detail);
    default:
      // Only a malformed report gets here; losing the testcase would make the counts lie.
      return { ...node, error: { ...problem, '@_type': 'report', '#text': xmlText(`unknown status ${String(c.status)}\n${detail}`) } };
  }
}

function loadCases(load: LoadResult): XmlNode[] {
  const cases: XmlNode[] = [];
  for (const s of load.scenarios) {
    const classname = xmlAttr(`ces-harness.load.${s.scenario}`);
    if (s.error) {
      cases.push({
        '@_name': xmlAttr(`${s.scenario}: runs`),
        '@_classname': classname,
        '@_time': seconds(0),
        error: { '@_message': xmlAttr(s.error), '@_type': 'scenario', '#text': xmlText(s.error) },
      });
    }
    for (const t of s.thresholds) {
      const node: XmlNode = { '@_name': xmlAttr(`${s.scenario}: ${thresholdText(t)}`), '@_classname': classname, '@_time': seconds(0) };
      cases.push(
        t.ok
          ? withOutput(node, scenarioLine(s))
          : { ...node, failure: { '@_message': xmlAttr(`threshold ${thresholdText(t)} crossed`), '@_type': 'threshold', '#text': xmlText(scenarioLine(s)) } },
      );
    }
  }
  // k6 can fail a run for reasons no threshold names; the exit code says fail, so JUnit must too.
  const explained = cases.some((c) => 'failure' in c || 'error' in c);
  if (!load.ok && !explained) {
    cases.push({
      '@_name': 'k6 run',
      '@_classname': 'ces-harness.load',
      '@_time': seconds(0),
      failure: { '@_message': 'k6 reported the run as failed', '@_type': 'k6', '#text': xmlText(`k6 ${load.k6_version}, run ${load.run_id}`) },
    });
  }
  return cases;
}

function rateLimitCase(r: RateLimitResult): XmlNode {
  const lines = [
    `Recommendation: ${recommendationText(r)}`,
    proofText(r) === null ? null : `Proof run: ${proofText(r)}`,
    ...rateLimitFacts(r).map(([label, value]) => `${label}: ${value}`),
    ...(r.notes ?? []),
  ];
  return withOutput(
    { '@_name': xmlAttr(`${r.endpoint}: rate-limit sizing`), '@_classname': 'ces-harness.rate-limit', '@_time': seconds(0) },
    lines.filter((l) => l !== null).join('\n'),
  );
}

// A stage that could not test is an error testcase: CI test tabs must show the run as broken.
function untestedCase(u: Untested): XmlNode {
  return {
    '@_name': xmlAttr(`${u.stage}: could not test`),
    '@_classname': 'ces-harness.untested',
    '@_time': seconds(0),
    error: { '@_message': xmlAttr(u.reason), '@_type': 'untested', '#text': xmlText(u.reason) },
  };
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function countCases(cases: readonly XmlNode[]): Counts {
  return {
    tests: cases.length,
    failures: cases.filter((c) => 'failure' in c).length,
    errors: cases.filter((c) => 'error' in c).length,
    skipped: cases.filter((c) => 'skipped' in c).length,
  };
}

const countAttrs = (c: Counts): XmlNode => ({ '@_tests': c.tests, '@_failures': c.failures, '@_errors': c.errors, '@_skipped': c.skipped });

function suite(name: string, cases: XmlNode[], timeS: number, extra: XmlNode = {}): { node: XmlNode; counts: Counts } {
  const counts = countCases(cases);
  return { node: { '@_name': name, ...countAttrs(counts), '@_time': timeS.toFixed(3), ...extra, testcase: cases }, counts };
}

function properties(report: Report): XmlNode {
  const entries: Array<[string, string]> = [
    ['verdict', report.verdict],
    ['target.environment', report.target.environment],
    ['target.base_url', report.target.base_url],
    ['tool.version', report.tool.version],
  ];
  return { properties: { property: entries.map(([name, value]) => ({ '@_name': name, '@_value': xmlAttr(value) })) } };
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  // Otherwise a message that is literally "true" would come out as a bare, invalid attribute.
  suppressBooleanAttributes: false,
  processEntities: true,
});

export function renderJunit(report: Report): string {
  const checksMs = report.checks.reduce((sum, c) => sum + (Number.isFinite(c.duration_ms) ? c.duration_ms : 0), 0);
  const suites = [
    suite('conformance', report.checks.map(checkCase), checksMs / 1000, { '@_timestamp': xmlAttr(report.started_at), ...properties(report) }),
    ...(report.load ? [suite('load', loadCases(report.load), 0)] : []),
    ...(report.rate_limit ? [suite('rate-limit', [rateLimitCase(report.rate_limit)], 0)] : []),
    ...((report.untested ?? []).length > 0 ? [suite('untested', (report.untested ?? []).map(untestedCase), 0)] : []),
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
  const xml = builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': 'ces-harness',
      ...countAttrs(total),
      '@_time': (runSeconds(report) ?? checksMs / 1000).toFixed(3),
      testsuite: suites.map((s) => s.node),
    },
  });
  return xml.endsWith('\n') ? xml : `${xml}\n`;
}
