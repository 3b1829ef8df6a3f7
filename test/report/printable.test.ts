// Control characters a service sends are shown as escapes, never passed to a terminal or a page.
import { describe, expect, it } from 'vitest';
import { renderLine } from '../../src/cli/terminal.js';
import { Redactor } from '../../src/http/redact.js';
import { buildReport } from '../../src/report/build.js';
import { printable } from '../../src/report/common/printable.js';

describe('printable', () => {
  it.each([
    ['ESC', 'red \x1b[31mtext\x1b[0m', 'red \\x1b[31mtext\\x1b[0m'],
    ['NUL', 'a\u0000b', 'a\\u0000b'],
    ['BEL, BS and DEL', '\x07\x08\x7f', '\\x07\\x08\\x7f'],
    ['a C1 control (CSI)', 'x\u009bm', 'x\\x9bm'],
    ['a bidi override', 'abc\u202edef', 'abc\\u202edef'],
    ['a lone CR that would overwrite the line', 'PASS\rFAIL', 'PASS\\rFAIL'],
    ['line breaks and tabs on one line', 'a\nb\tc', 'a\\nb\\tc'],
    ['ordinary text, unicode and backslashes', 'é → ✓ \\x1b', 'é → ✓ \\x1b'],
  ])('%s', (_name, input, shown) => {
    expect(printable(input)).toBe(shown);
  });

  it('keeps LF and tab (CRLF as LF) where a renderer shows several lines, and escapes the rest', () => {
    expect(printable('a\r\nb\tc\x1b\u0000', { multiline: true })).toBe('a\nb\tc\\x1b\\u0000');
  });
});

describe('where service text enters', () => {
  it('the report model holds no control character but LF and tab', () => {
    const report = buildReport({
      version: '0',
      target: { environment: 'sandbox', base_url: 'https://x.test' },
      startedAt: new Date(0),
      finishedAt: new Date(1000),
      checks: [
        {
          id: 'a.b',
          title: 't',
          spec: '4.1',
          level: 'must',
          status: 'fail',
          message: 'got `\x1b]0;pwned\x07`\nnext',
          duration_ms: 1,
          evidence: [{ request: 'POST /tokens', note: 'nul\u0000' }],
        },
      ],
      untested: [{ stage: 'load', reason: 'k6 said \x1b[2J' }],
    });
    const text = JSON.stringify(report);
    // JSON writes a raw control character as \u00XX with one backslash; an escape shown as text has two.
    expect(text).not.toMatch(/(?<!\\)\\u00[0-9a-f]{2}/i);
    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(report.checks[0]!.message).toBe('got `\\x1b]0;pwned\\x07`\nnext');
    expect(report.checks[0]!.evidence[0]!.note).toBe('nul\\u0000');
    expect(report.untested[0]!.reason).toBe('k6 said \\x1b[2J');
  });

  it('a terminal line paints only its own spans; the text inside them is escaped', () => {
    const line = renderLine([{ text: 'FAIL', sgr: 31 }, ' body \x1b[32mPASS'], new Redactor(), true);
    expect(line).toBe('\x1b[31mFAIL\x1b[0m body \\x1b[32mPASS');
    expect(renderLine('x\x1by', new Redactor(), false)).toBe('x\\x1by');
  });
});
