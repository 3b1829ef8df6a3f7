// Every format states the scope of the rate-limit recommendation beside it (issue 35 item 3): how
// long the k6 proof held it and that a limit on a longer window is not tested, or that no proof
// ran. run keeps its proof at 5 s; its closing line read "rate limit: ~X req/s sustained;
// recommend Y" as if Y held for good.

import { describe, expect, it } from 'vitest';
import { plainText, summaryLines } from '../../src/cli/terminal.js';
import { renderHtml, renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import type { RateLimitResult, Report } from '../../src/report/model.js';
import { loadFixture } from './helpers.js';
import { expectValidReport, validateReport } from './schema.js';

const withRateLimit = (patch: Partial<RateLimitResult>): Report => {
  const report = loadFixture('pass');
  return { ...report, rate_limit: { ...report.rate_limit!, ...patch } };
};

const closingLine = (report: Report): string =>
  summaryLines(report, 'r')
    .map(plainText)
    .find((l) => l.startsWith('rate limit: '))!;

// The whole run report as each format writes it, the markdown unescaped as a reader sees it.
const formats = (report: Report): Record<string, string> => ({
  terminal: closingLine(report),
  md: renderMarkdown(report).replace(/\\(.)/g, '$1'),
  html: renderHtml(report),
  junit: renderJunit(report),
});

describe("the rate-limit recommendation's scope", () => {
  const short = loadFixture('pass');

  it.each(['terminal', 'md', 'html', 'junit'])('%s: the headline says the horizon run proved', (format) => {
    const out = formats(short)[format]!;
    // The recommendation and its horizon in one sentence, not only in a table further down.
    expect(out).toMatch(
      /(recommend 40 req\/s|send at most 40\.0\/s)[^\n<]*; proven for 5 s; a limit on a window longer than 2\.5 s is not tested \(run keeps its proof short to stay quick; `ratelimit` proves 120 s, or give --horizon\)/,
    );
  });

  it("md and html: the report's summary beside the check counts says the rate limit and its horizon", () => {
    expect(
      renderMarkdown(short)
        .split('\n')
        .find((l) => l.startsWith('**')),
    ).toMatch(
      / · \*\*rate limit:\*\* send at most 40\.0\/s; proven for 5 s; a limit on a window longer than 2\.5 s is not tested/,
    );
    expect(renderHtml(short)).toMatch(
      /<\/ul>\n<p class="muted">Rate limit: send at most 40\.0\/s; proven for 5 s; a limit on a window longer than 2\.5 s is not tested/,
    );
  });

  it('json: the horizon is a number a machine reads, and the schema wants it once a proof held', () => {
    const json = JSON.parse(renderJson(short)) as { rate_limit: RateLimitResult };
    expect(json.rate_limit.proof_horizon?.proven_s).toBe(5);
    expect(json.rate_limit.proof_horizon?.covers_window_s).toBe(2.5);
    expectValidReport(json);
    delete json.rate_limit.proof_horizon;
    expect(validateReport(json)).toBe(false);
  });

  it.each(['terminal', 'md', 'html', 'junit'])('%s: a recommendation no proof ran for says so', (format) => {
    const report = withRateLimit({ proof: null, proof_verdict: 'not run', proof_horizon: undefined });
    expect(formats(report)[format]).toContain('not proven: no k6 proof ran, so it holds over no stated horizon');
    expect(formats(report)[format]).not.toContain('proven for');
  });

  it('a proof whose horizon the report does not record is never said to be no proof', () => {
    const report = withRateLimit({ proof_verdict: undefined, proof_horizon: undefined });
    expect(closingLine(report)).toContain('proven over a horizon this report does not record');
    expect(closingLine(report)).not.toContain('no k6 proof ran');
  });

  it("ratelimit's own horizon: 120 s, a window longer than 60 s not tested", () => {
    const report = withRateLimit({ proof_horizon: { proven_s: 120, covers_window_s: 60, longest_window_s: 1 } });
    expect(closingLine(report)).toMatch(
      /recommend 40 req\/s.*; proven for 120 s; a limit on a window longer than 60 s is not tested$/,
    );
  });
});

// A load verdict covers the seconds its scenarios ran: run's are 5 s, load's 10 s by default.
describe("the load verdict's scope", () => {
  const report = loadFixture('pass');

  it.each(['terminal', 'md', 'html'])('%s: says how long each scenario ran', (format) => {
    const out =
      format === 'terminal'
        ? summaryLines(report, 'r').map(plainText).join('\n')
        : format === 'md'
          ? renderMarkdown(report)
          : renderHtml(report);
    expect(out).toMatch(format === 'terminal' ? /^load: 2 scenario\(s\) of 10 s each, /m : / · 10 s each · k6 /m);
  });

  it('json: each scenario carries duration_s; scenarios of several lengths say the span', () => {
    const json = JSON.parse(renderJson(report)) as Report;
    expect(json.load!.scenarios.map((s) => s.duration_s)).toEqual([10, 10]);
    const mixed = {
      ...report,
      load: {
        ...report.load!,
        scenarios: [{ ...report.load!.scenarios[0]!, duration_s: 5 }, report.load!.scenarios[1]!],
      },
    };
    expect(summaryLines(mixed, 'r').map(plainText).join('\n')).toMatch(/^load: 2 scenario\(s\) of 5–10 s each, /m);
  });
});
