// junit.xml of `cutover`: one testcase per readiness finding, so CI shows what blocks the cutover.

import type { CutoverReport } from './report-model.js';
import { renderXml, type XmlElement } from '../report/common/xml.js';

export function renderCutoverJunit(r: CutoverReport): string {
  const findings = r.cutover.findings;
  const cases: XmlElement[] = findings.map((f) => ({
    name: 'testcase',
    attributes: { classname: 'cutover', name: f.id },
    content:
      f.status === 'breaking'
        ? [{ name: 'failure', attributes: { message: f.line }, content: f.line }]
        : f.status === 'not_tested'
          ? [{ name: 'skipped', attributes: { message: f.line } }]
          : [{ name: 'system-out', content: f.line }],
  }));
  const count = (status: string) => findings.filter((f) => f.status === status).length;
  return renderXml({
    name: 'testsuites',
    attributes: {
      name: 'ces-harness cutover',
      tests: findings.length,
      failures: count('breaking'),
      skipped: count('not_tested'),
    },
    content: [
      {
        name: 'testsuite',
        attributes: {
          name: `cutover: ${r.cutover.verdict}`,
          tests: findings.length,
          failures: count('breaking'),
          skipped: count('not_tested'),
          timestamp: r.started_at,
        },
        content: cases,
      },
    ],
  });
}
