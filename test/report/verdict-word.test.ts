// A run that fails only because something it was asked to test could not be tested (a rate limit on
// an hour's window, a spent production budget) is headed NOT TESTED in every summary a person reads,
// never FAIL: the service was not found wanting. report.json's verdict and the exit code stay fail.

import { describe, expect, it } from 'vitest';
import { renderLine, summaryLines } from '../../src/cli/terminal.js';
import { Redactor } from '../../src/http/redact.js';
import { renderers } from '../../src/report/index.js';
import { verdictWord, type Report } from '../../src/report/model.js';
import { loadFixture } from './helpers.js';

/** The failing fixture with its reasons replaced by a not-tested rate limit alone. */
function onlyUntested(): Report {
  const report = loadFixture('pass');
  const reason = 'tokens.validate: not identified: the window is longer than the probe budget';
  return {
    ...report,
    verdict: 'fail',
    verdict_reasons: [{ kind: 'not_tested', subject: 'rate_limit', text: reason }],
    untested: [{ stage: 'rate_limit', reason }],
  };
}

const terminalHead = (report: Report) =>
  summaryLines(report, '/tmp/r')
    .map((l) => renderLine(l, new Redactor(), false))
    .find((l) => /^(PASS|FAIL|NOT TESTED) /.test(l));

describe('the verdict as the summaries word it', () => {
  it('NOT TESTED when every reason is something not tested; FAIL when a check failed too; PASS on a pass', () => {
    expect(verdictWord(onlyUntested())).toBe('NOT TESTED');
    const failed = loadFixture('fail');
    expect(verdictWord(failed)).toBe('FAIL');
    expect(
      verdictWord({ ...failed, verdict_reasons: [...failed.verdict_reasons, ...onlyUntested().verdict_reasons] }),
    ).toBe('FAIL');
    expect(verdictWord(loadFixture('pass'))).toBe('PASS');
  });

  it('heads the terminal summary, report.md and report.html alike; report.json keeps verdict fail', () => {
    const report = onlyUntested();
    expect(terminalHead(report)).toMatch(/^NOT TESTED {2}sandbox /);
    expect(terminalHead(loadFixture('fail'))).toMatch(/^FAIL {2}/);
    expect(renderers['report.md'](report)).toMatch(/^## ⚠️ ces-harness: not tested · /m);
    expect(renderers['report.md'](loadFixture('fail'))).toMatch(/^## ❌ ces-harness: fail · /m);
    expect(renderers['report.html'](report)).toMatch(/role="status">.*? NOT TESTED<\/div>/);
    expect(JSON.parse(renderers['report.json'](report)).verdict).toBe('fail');
  });
});
