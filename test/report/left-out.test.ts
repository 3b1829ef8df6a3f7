// Checks --only/--skip left out are outside the verdict, and every format says which: before, a
// `run --skip tls.*` listed 33 checks and no word of the 7 TLS ones, so its PASS read as all of them.
// So are the checks that ran and were skipped (a token not yet expired, a lifetime not measured):
// before, a PASS said only "6 skipped", and which were outside it was left to the rows above.

import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { checksLeftOut } from '../../src/cli/commands/check.js';
import type { Options } from '../../src/cli/flags.js';
import { plainText, summaryLines } from '../../src/cli/terminal.js';
import { buildReport } from '../../src/report/build.js';
import { renderHtml, renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import type { Report } from '../../src/report/model.js';
import { loadFixture } from './helpers.js';

/** Each format a report is read in, as plain text (report.md's escapes undone). */
const FORMATS: Array<[string, (r: Report) => string]> = [
  ['terminal', (r) => summaryLines(r, 'r').map(plainText).join('\n')],
  ['md', (r) => renderMarkdown(r).replace(/\\(.)/g, '$1')],
  ['html', (r) => renderHtml(r)],
  ['junit', (r) => renderJunit(r)],
];

const tlsIds = CHECKS.map((c) => c.id).filter((id) => id.startsWith('tls.'));

describe('checks left out by the selection', () => {
  it('checksLeftOut names the flags and every id they kept from the run; none without a selection', () => {
    expect(checksLeftOut({ skip: ['tls.*'] } as Options)).toEqual({ by: '--skip tls.*', ids: tlsIds });
    const only = checksLeftOut({ only: ['tls.*'] } as Options);
    expect(only?.by).toBe('--only tls.*');
    expect(only?.ids).toHaveLength(CHECKS.length - tlsIds.length);
    expect(checksLeftOut({} as Options)).toBeUndefined();
  });

  const report: Report = buildReport({
    ...(({ checks, target }) => ({ checks, target }))(loadFixture('pass')),
    version: '0',
    startedAt: new Date(0),
    finishedAt: new Date(1000),
    checksLeftOut: { by: '--skip tls.*', ids: ['tls.no-plain-http', 'tls.certificate-valid'] },
  });
  const said =
    '2 checks left out by --skip tls.*, not run, so outside this verdict: tls.no-plain-http, tls.certificate-valid';

  it.each(FORMATS)('%s says which checks are outside the verdict', (_, render) => {
    expect(render(report)).toContain(said);
  });

  it('json carries them as data', () => {
    expect((JSON.parse(renderJson(report)) as Report).checks_left_out).toEqual({
      by: '--skip tls.*',
      ids: ['tls.no-plain-http', 'tls.certificate-valid'],
    });
    const all = buildReport({
      ...(({ checks, target }) => ({ checks, target }))(loadFixture('pass')),
      version: '0',
      startedAt: new Date(0),
      finishedAt: new Date(1000),
    });
    expect(all.checks_left_out).toBeUndefined();
  });
});

describe('checks skipped', () => {
  const report: Report = buildReport({
    ...(({ checks, target }) => ({ checks, target }))(loadFixture('pass')),
    version: '0',
    startedAt: new Date(0),
    finishedAt: new Date(1000),
  });
  const said = '2 checks skipped, so outside this verdict (each says why): token.expired-401, env.credential-isolation';

  it.each(FORMATS)('%s names them beside the verdict', (_, render) => {
    expect(render(report)).toContain(said);
  });

  it('none skipped, nothing said', () => {
    const ran = { ...report, checks: report.checks.filter((c) => c.status !== 'skip') };
    for (const [, render] of FORMATS) expect(render(ran)).not.toContain('skipped, so outside');
  });
});
