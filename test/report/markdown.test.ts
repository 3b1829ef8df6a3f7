import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { CheckResult, Report } from '../../src/report/model.js';
import { FIXTURES, XSS, loadFixture } from './helpers.js';

/** The lines of a `### title` section, up to the next heading. */
function sectionOf(md: string, title: string): string[] | null {
  const lines = md.split('\n');
  const start = lines.indexOf(`### ${title}`);
  if (start === -1) return null;
  const end = lines.findIndex((l, i) => i > start && l.startsWith('#'));
  return lines.slice(start + 1, end === -1 ? undefined : end).filter((l) => l !== '');
}

/** The rows of the checks table (header and rule excluded). */
function checkRows(md: string): string[] {
  const lines = md.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| Status | Check |'));
  const rows: string[] = [];
  for (let i = header + 2; i < lines.length && lines[i]?.startsWith('|'); i++) rows.push(lines[i] ?? '');
  return rows;
}

/** Cell separators GFM sees: pipes not escaped with a backslash. */
const separators = (row: string): number => (row.match(/(?<!\\)\|/g) ?? []).length;

const listedIds = (lines: readonly string[]): string[] =>
  lines.filter((l) => l.startsWith('- ')).map((l) => /`([^`]+)`/.exec(l)?.[1] ?? '');

const withCheck = (report: Report, patch: Partial<CheckResult>, index = 0): Report => ({
  ...report,
  checks: report.checks.map((c, i) => (i === index ? { ...c, ...patch } : c)),
});

describe.each(FIXTURES)('renderMarkdown(report-%s)', (name) => {
  const report = loadFixture(name);
  const md = renderMarkdown(report);

  it('starts with a title line carrying the verdict, target and time', () => {
    const title = md.split('\n')[0] ?? '';
    expect(title).toMatch(name === 'pass' ? /^## ✅ / : /^## ❌ /);
    expect(title).toContain(report.target.environment);
    expect(title).toContain(report.target.base_url);
    expect(title).toContain(report.started_at);
  });

  it('has a summary line with the counts', () => {
    const s = report.summary;
    expect(md).toContain(
      `${s.passed} passed · ${s.failed} failed · ${s.warned} warned · ${s.skipped} skipped · ${s.errored} errored`,
    );
  });

  it('has one table row per check, in order, each with five cells', () => {
    const rows = checkRows(md);
    expect(rows).toHaveLength(report.checks.length);
    rows.forEach((row, i) => {
      expect(row).toContain(`\`${report.checks[i]?.id}\``);
      expect(separators(row)).toBe(6);
    });
  });

  it('lists exactly the failed and errored must checks under Failures, with their evidence', () => {
    const expected = report.checks.filter((c) => c.level === 'must' && (c.status === 'fail' || c.status === 'error'));
    const section = sectionOf(md, 'Failures');
    if (expected.length === 0) {
      expect(section).toBeNull();
      return;
    }
    expect(section).not.toBeNull();
    expect(listedIds(section ?? [])).toEqual(expected.map((c) => c.id));
    const evidenceLines = (section ?? []).filter((l) => l.startsWith('  - '));
    expect(evidenceLines).toHaveLength(expected.reduce((n, c) => n + c.evidence.length, 0));
  });

  it('lists the warnings and every skip with its reason', () => {
    expect(listedIds(sectionOf(md, 'Warnings') ?? [])).toEqual(
      report.checks.filter((c) => c.status === 'warn').map((c) => c.id),
    );
    const skips = report.checks.filter((c) => c.status === 'skip');
    const section = sectionOf(md, 'Skipped') ?? [];
    expect(listedIds(section)).toEqual(skips.map((c) => c.id));
    for (const c of skips) expect(section.join('\n')).toContain(c.message.slice(0, 30));
  });

  it('has a Load table with a row per scenario and a mark per threshold', () => {
    const section = (sectionOf(md, 'Load') ?? []).join('\n');
    const scenarios = report.load?.scenarios ?? [];
    for (const s of scenarios) expect(section).toContain(`| \`${s.scenario}\` |`);
    const thresholds = scenarios.flatMap((s) => s.thresholds);
    expect(section.match(/✓ `/g)?.length ?? 0).toBe(thresholds.filter((t) => t.ok).length);
    expect(section.match(/✗ `/g)?.length ?? 0).toBe(thresholds.filter((t) => !t.ok).length);
    expect(section).toMatch(name === 'pass' ? /✅ thresholds met/ : /❌ thresholds not met/);
  });

  it('has a Rate limit section with the estimate, the recommendation and the proof', () => {
    const section = (sectionOf(md, 'Rate limit') ?? []).join('\n');
    expect(section).toContain('**Recommendation:** send at most 40.0/s with at most 8 requests in flight');
    expect(section).toContain('full jitter');
    // As the terminal's recommend line says it: the service's own wait comes before any backoff.
    expect(section).toContain('on 429 honour Retry-After, else retry with exponential backoff');
    expect(section).toContain('**Proof run:**');
    expect(section).toContain('| Sustained rate | 50.0/s |');
  });
});

describe('renderMarkdown escaping', () => {
  const report = loadFixture('fail');

  it('keeps a table intact when a message holds pipes and newlines', () => {
    const md = renderMarkdown(withCheck(report, { message: 'got a | b\nthen c', title: 'x|y' }));
    const row = checkRows(md)[0] ?? '';
    expect(separators(row)).toBe(6);
    expect(row).toContain('got a \\| b<br>then c');
    expect(checkRows(md)).toHaveLength(report.checks.length);
  });

  it('shows HTML in a message as text', () => {
    const md = renderMarkdown(withCheck(report, { message: `body was ${XSS}` }));
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(md).not.toContain('<img');
  });

  it('does not let a message start markdown constructs', () => {
    const md = renderMarkdown(withCheck(report, { message: '**bold** [link](javascript:x) _em_\n# heading' }));
    const row = checkRows(md)[0] ?? '';
    expect(row).toContain('\\*\\*bold\\*\\* \\[link\\](javascript:x) \\_em\\_<br>\\# heading');
  });

  // GitHub links a bare URL, www.… and an e-mail address by itself, escaped or not: in a code span it links nothing.
  it.each([
    ['a URL', 'see https://evil.example/x?a=1 now', 'see `https://evil.example/x?a=1` now'],
    ['another scheme', 'at ftp://evil.example', 'at `ftp://evil.example`'],
    ['www.', 'go to www.evil.example.', 'go to `www.evil.example`.'],
    [
      'a URL in parentheses',
      '(CN=https://evil.example/cert, issued by x)',
      '(CN=`https://evil.example/cert`, issued by x)',
    ],
    ['an e-mail address', 'mail admin@evil.example', 'mail `admin@evil.example`'],
    // The service's own backtick ends the author's quote: the spans that would touch become one.
    [
      "a URL right after the author's quote",
      'got `{"a":"`https://evil.example`"}`',
      'got `{"a":"https://evil.example"}`',
    ],
    ['a URL holding a backtick', 'x https://e.example/`y', 'x ``https://e.example/`y``'],
  ])('puts %s from the service in a code span', (_name, message, shown) => {
    const row = checkRows(renderMarkdown(withCheck(report, { message })))[0] ?? '';
    expect(row).toContain(`| ${shown} |`);
  });

  it('keeps an id holding a backtick in one code span', () => {
    const md = renderMarkdown(withCheck(report, { id: 'odd`id' }));
    expect(md).toContain('``odd`id``');
  });
});

describe('renderMarkdown without optional stages', () => {
  it('omits the Load and Rate limit sections when they did not run', () => {
    const md = renderMarkdown({ ...loadFixture('pass'), load: null, rate_limit: null });
    expect(sectionOf(md, 'Load')).toBeNull();
    expect(sectionOf(md, 'Rate limit')).toBeNull();
    expect(md).not.toContain('load:');
  });

  it('says when a scenario could not run', () => {
    const report = loadFixture('fail');
    const load = report.load;
    if (!load) throw new Error('fixture has no load');
    const md = renderMarkdown({
      ...report,
      load: { ...load, scenarios: [{ ...load.scenarios[0]!, error: 'k6 exited 107: script error' }] },
    });
    expect(md).toContain('did not run: k6 exited 107: script error');
  });
});

describe('renderMarkdown untested stages', () => {
  it('says what could not be tested before the checks table', () => {
    const md = renderMarkdown(loadFixture('fail'));
    const at = md.indexOf('### Not tested');
    expect(at).toBeGreaterThan(0);
    expect(md.indexOf('| Status')).toBeGreaterThan(at);
    expect(md).toContain('`rate_limit`: every probe request got 401');
  });
});
