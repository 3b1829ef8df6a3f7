// The transport line (report.json target.transport): one sentence, said alike on the terminal, in
// report.md and report.html, and absent when the run has nothing to say.

import { describe, expect, it } from 'vitest';
import { summaryLines } from '../../src/cli/terminal.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { TransportFacts } from '../../src/report/model.js';
import { transportText } from '../../src/report/sections/transport/words.js';
import { loadFixture } from './helpers.js';

describe('the transport sentence', () => {
  it.each<[TransportFacts, string]>([
    [
      { http_offered: ['h2', 'http/1.1'], http_used: { h2: 3 }, content_codings: { gzip: 120, identity: 15 } },
      'HTTP/2 and HTTP/1.1 offered by ALPN, the checks spoke HTTP/2; answers gzip-compressed (120 of 135)',
    ],
    [
      { http_offered: ['http/1.1'], http_used: { 'http/1.1': 2 }, content_codings: { identity: 9 } },
      'HTTP/1.1 only (no HTTP/2 by ALPN), the checks spoke HTTP/1.1; answers not compressed',
    ],
    [
      { http_offered: ['h2'], http_used: { h2: 1 }, content_codings: { br: 4, gzip: 1 } },
      'HTTP/2 only (HTTP/1.1 refused by ALPN), the checks spoke HTTP/2; answers br/gzip-compressed (5 of 5)',
    ],
    // Only TLS checks ran, and the probe could not tell: nothing but what is known.
    [{ http_used: {}, content_codings: {} }, ''],
    [{ http_offered: ['h2', 'http/1.1'], http_used: {}, content_codings: {} }, 'HTTP/2 and HTTP/1.1 offered by ALPN'],
  ])('%j → %s', (facts, sentence) => {
    expect(transportText(facts)).toBe(sentence);
  });

  it('is one line on the terminal, in report.md and in report.html, and none without facts', () => {
    const report = loadFixture('pass');
    const transport: TransportFacts = {
      http_offered: ['h2', 'http/1.1'],
      http_used: { h2: 3 },
      content_codings: { gzip: 7 },
    };
    const withTransport = { ...report, target: { ...report.target, transport } };
    const sentence = transportText(transport);
    expect(summaryLines(withTransport, 'reports/x')).toContain(`transport: ${sentence}`);
    expect(renderMarkdown(withTransport)).toContain(`**Transport:** ${sentence}`);
    expect(renderHtml(withTransport)).toContain(`Transport: ${sentence}`);
    expect(summaryLines(report, 'reports/x').join('\n')).not.toContain('transport:');
    expect(renderMarkdown(report)).not.toContain('Transport');
  });
});

it('says nothing where there is nothing to say (only TLS checks ran, the probe could not tell)', () => {
  const report = loadFixture('pass');
  const empty = { ...report, target: { ...report.target, transport: { http_used: {}, content_codings: {} } } };
  expect(summaryLines(empty, 'reports/x').join('\n')).not.toContain('transport');
  expect(renderMarkdown(empty)).not.toContain('Transport');
  expect(renderHtml(empty)).not.toContain('Transport');
});
