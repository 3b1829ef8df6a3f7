// The advertised limit, one line wherever the rate limit is reported: report.md and report.html's
// facts table and the terminal's summary, with the verdict in words (a disagreement in capitals).

import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderHtml } from '../../src/report/html.js';
import type { AdvertisedLimit, Report } from '../../src/report/model.js';
import { summaryLines } from '../../src/ratelimit/result.js';
import { loadFixture } from './helpers.js';

const withAdvertised = (report: Report, advertised: AdvertisedLimit): Report => ({
  ...report,
  rate_limit: { ...report.rate_limit!, advertised },
});

describe.each([
  [
    { limit: 60, window_s: 60, source_header: 'RateLimit-Policy', agrees: true, note: 'measured 60 per 60 s: agrees' },
    '60 per 60 s (RateLimit-Policy): agrees with the measurement (measured 60 per 60 s: agrees)',
  ],
  [
    {
      limit: 100,
      window_s: 60,
      source_header: 'RateLimit-Policy',
      agrees: false,
      note: 'measured 60 per 60 s: the announcement overstates the limit',
    },
    '100 per 60 s (RateLimit-Policy): DISAGREES with the measurement (measured 60 per 60 s: the announcement overstates the limit)',
  ],
  [
    {
      limit: 5000,
      window_s: null,
      source_header: 'X-RateLimit-Limit',
      agrees: null,
      note: 'advertised, not verified: about 3700 s of probing needed',
    },
    '5000 per window (X-RateLimit-Limit): not verified (advertised, not verified: about 3700 s of probing needed)',
  ],
] as const)('advertised %#', (advertised, line) => {
  const report = withAdvertised(loadFixture('pass'), advertised);

  it('is a row of the facts in report.md and report.html', () => {
    expect(renderMarkdown(report)).toContain(`| Advertised limit | ${line} |`);
    expect(renderHtml(report)).toContain(`<th scope="row">Advertised limit</th><td>${line}</td>`);
  });

  it('is one line of the terminal summary', () => {
    expect(summaryLines(report.rate_limit!)).toContain(`  advertised: ${line}`);
  });
});

it('no row when the service announced nothing', () => {
  const report = loadFixture('pass');
  expect(report.rate_limit?.advertised).toBeUndefined();
  expect(renderMarkdown(report)).not.toContain('Advertised limit');
});
