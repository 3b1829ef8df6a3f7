// junit.xml's "since-last-run" suite: one testcase per change. A change the policy fails on is a
// <failure> (CI test tabs turn red with the exit code); a warning or an improvement passes with
// its line in <system-out>, like a `warn` check.

import type { Change, SinceLastRun } from './model.js';
import { KIND_LABEL, notComparedLines, sinceHeadline } from './words.js';
import { xmlChars, type XmlElement } from '../../common/xml.js';

const oneLine = (text: string): string => xmlChars(text).replace(/\s*[\r\n]+\s*/g, ' ');

function changeCase(c: Change): XmlElement {
  const outcome: XmlElement =
    c.action === 'fail'
      ? { name: 'failure', attributes: { message: oneLine(c.text), type: c.kind }, content: c.text }
      : { name: 'system-out', content: `${c.action === 'warn' ? 'warning' : 'better'}: ${c.text}` };
  return {
    name: 'testcase',
    attributes: {
      name: oneLine(`${KIND_LABEL[c.kind]}: ${c.subject} ${c.name}`),
      classname: `ces-harness.since-last-run.${c.kind}`,
      time: '0.000',
    },
    content: [outcome],
  };
}

/** The suite's cases; the headline rides on a first case, so an empty comparison still says it ran. */
export function sinceLastRunCases(since: SinceLastRun): XmlElement[] {
  const headline: XmlElement = {
    name: 'testcase',
    attributes: { name: 'compared with the stored runs', classname: 'ces-harness.since-last-run', time: '0.000' },
    content: [{ name: 'system-out', content: [sinceHeadline(since), ...notComparedLines(since)].join('\n') }],
  };
  return [headline, ...since.changes.map(changeCase)];
}
