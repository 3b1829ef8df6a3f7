// Issue 35 item 4: the headline is what holds. A per-second and a per-minute limit, both announced;
// under `run`'s 30 s probe the minute cannot be verified, so the measured 30 req/s (the per-second
// limit's) is one limit of several: no format may state it as the sustained rate a client can rely
// on. The headline is the announced minute's 10 req/s, said to be announced and not proven, with the
// measured rate beside it; the report stays valid against the schema.

import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { RUN_PROBE_CAP_S } from '../../src/ratelimit/horizon.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { kongHeaders } from '../../src/spec/ratelimit-fields.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderJson } from '../../src/report/json.js';
import { summaryLines as closingLines } from '../../src/cli/terminal.js';
import { loadFixture } from '../report/helpers.js';
import { validateReport } from '../report/schema.js';
import { advertising, discoverVirtual } from './virtual-limit.js';

const stack: LimiterSet = [
  { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
  { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 17, counts_refused: false },
];

/** The rate as a format writes it: "10 req/s", "10.0/s", "~10 req/s". */
const stated = (text: string, rps: number) => new RegExp(`(^|[^\\d.])${rps}(\\.0+)? ?(req)?/s`).test(text);
const SAID = /announced, not proven: 600 per 60 s/;

describe("the headline under run's probe, the announced minute not verified", () => {
  it.each([
    ['an IETF RateLimit-Policy list', undefined],
    ["Kong's fields", kongHeaders],
  ] as const)('announced as %s: sustained 10 req/s, announced, not proven, in every format', async (_, fields) => {
    const estimate = await discoverVirtual(
      { limiter: () => advertising(stack, undefined, fields), status: 429 },
      { maxDurationS: RUN_PROBE_CAP_S },
    );
    // The probe measured the second; the minute is announced, not proven, and why.
    expect(estimate.sustained_rps).toBeGreaterThan(25);
    const minute = estimate.announced?.find((a) => a.window_s === 60);
    expect(minute).toMatchObject({
      agrees: null,
      note: expect.stringMatching(/^announced, not proven: .*the probe's budget is 30 s/),
    });
    const result = toRateLimitResult(estimate, recommend(estimate), null);
    expect(result.sustained_rps).toBe(10);
    expect(result.sustained_announced).toMatchObject({ limit: 600, window_s: 60, agrees: null });
    expect(result.sustained_announced!.measured_rps).toBe(estimate.sustained_rps);
    const measured = estimate.sustained_rps!;

    const report = { ...loadFixture('pass'), rate_limit: result };
    const terminal = summaryLines(result).join('\n');
    const closing = closingLines(report, 'r')
      .map((l) => (typeof l === 'string' ? l : l.map((s) => (typeof s === 'string' ? s : s.text)).join('')))
      .join('\n');
    const json = renderJson(report);
    expect(validateReport(JSON.parse(json)), JSON.stringify(validateReport.errors)).toBe(true);
    const formats: Array<[string, string]> = [
      ['terminal', terminal],
      ['markdown', renderMarkdown(report)],
      ['html', renderHtml(report)],
      ['junit', JSON.stringify(new XMLParser({ ignoreAttributes: false }).parse(renderJunit(report)))],
    ];
    for (const [name, text] of formats) {
      expect(text, name).toMatch(SAID);
      expect(stated(text, 10), name).toBe(true);
    }
    expect(terminal).toMatch(new RegExp(`sustained 10 req/s \\(${SAID.source}`));
    expect(closing).toMatch(/~10 req\/s sustained \(announced 600 per 60 s, not proven/);
    // The measured rate appears only beside the announced one, said to be one limit of several.
    expect(terminal).toMatch(new RegExp(`measured ${measured} req/s for the limit it reached, one of several`));
    expect(terminal).not.toMatch(new RegExp(`sustained ${measured} req/s`));
    expect(JSON.parse(json).rate_limit).toMatchObject({
      sustained_rps: 10,
      sustained_announced: { limit: 600, window_s: 60, agrees: null, measured_rps: measured },
    });
    expect(result.recommendation!.target_rps).toBeLessThanOrEqual(10);
  });
});
