// Issue 35, Flask-Limiter's quick start: a per-second limit beside "50 per hour", announced as an
// IETF RateLimit-Policy list or in Kong's per-unit fields. The hour's 50 are spent within seconds;
// then every answer is a refusal that says the hour is spent until its reset, an hour away. The
// probe used to send into it for the rest of its 150 s budget (1,595 requests, 1,543 refused) and
// end "shut until an edge, not a bucket", the per-second policy said twice, and "recommend:
// nothing". Now it stops once the refusals confirm the announcement, says the hour binds,
// announced, not proven, how long verifying it takes and that no setting reaches it, names each
// policy once in every format, and sets the announced ceiling beside "nothing", never as measured.

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { announcedPastBudget } from '../../src/ratelimit/probe/advertised.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { kongHeaders } from '../../src/spec/ratelimit-fields.js';
import { loadFixture } from '../report/helpers.js';
import { advertising, discoverVirtual, fromModel, gcra, type Limiter } from './virtual-limit.js';

const flask: LimiterSet = [
  { kind: 'bucket', rate_rps: 10, burst: 10 },
  { kind: 'fixed-window', limit: 50, window_s: 3600, phase_s: 0, counts_refused: false },
];

const count = (text: string, part: string) => text.split(part).length - 1;

describe.each([
  ['an IETF RateLimit-Policy list', undefined, 'RateLimit-Policy'],
  ["Kong's X-RateLimit-Limit-Second and -Hour", kongHeaders, 'X-RateLimit-Limit-Hour'],
] as const)('a per-second limit and 50 per hour, announced as %s', (_, fields, source) => {
  const probed = discoverVirtual(
    { limiter: () => advertising(flask, undefined, fields), status: 429, announces: 'retry-after' },
    { maxDurationS: 150 },
  );

  it('stops once the refusals confirm the hour spent past the budget, and says what binds', async () => {
    const e = await probed;
    const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined }, null, 1);
    // Before: 1,595 requests over the whole 150 s, 1,543 of them refused.
    expect(e.requests_sent, context).toBeLessThan(300);
    expect(e.duration_s, context).toBeLessThan(30);
    expect(e.notes[0], context).toMatch(
      new RegExp(
        `^not identified: ${source} announces 50 per 3600 s \\(0\\.0139 req/s, the lowest rate announced: the one a sustained client meets\\), spent: .* past the probe's budget \\(150 s\\), so the probe stopped there; announced, not proven: verifying it takes about \\d+ s of probing; no setting reaches it`,
      ),
    );
    // Nothing presented as measured: the seconds before the hour shut are no sustained rate.
    expect(e.sustained_rps).toBeNull();
    expect(e.limiter).toBeNull();
    expect(recommend(e)).toBeNull();
    const hour = e.announced?.find((a) => a.window_s === 3600);
    expect(hour, context).toMatchObject({
      limit: 50,
      agrees: null,
      note: expect.stringMatching(
        /^announced, not proven: about \d+ s of probing needed, the probe's budget is 150 s; no setting reaches it/,
      ),
    });
    expect(announcedPastBudget(e)).toEqual(hour);
  });

  it('names each policy once in every format, and the announced ceiling beside "nothing"', async () => {
    const result = toRateLimitResult(await probed, null, null);
    const lines = summaryLines(result).join('\n');
    expect(lines).not.toMatch(/^ {2}advertised: /m);
    expect(count(lines, '10 per 1 s (')).toBe(1);
    expect(count(lines, `50 per 3600 s (${source})`)).toBe(1);
    expect(lines).toMatch(
      new RegExp(
        `^recommend: nothing \\(no sustained rate measured\\); announced, not proven: at most 50 per 3600 s \\(0\\.0139 req/s, ${source}\\)$`,
        'm',
      ),
    );
    expect(result.advertised).toBeUndefined();
    expect(result.sustained_rps).toBeNull();
    const report = { ...loadFixture('fail'), rate_limit: result };
    for (const text of [renderMarkdown(report), renderHtml(report)]) {
      expect(text).not.toContain('Advertised limit');
      expect(count(text, '10 per 1 s (')).toBe(1);
    }
  });
});

it('an hour announced spent that the service does not keep (requests pass) never stops the probe', async () => {
  // A gateway that always says "hour: none left, back at its end" (a fixed end, as a true window's
  // is) in front of a per-second bucket that lets requests through all along.
  const lying = (): Limiter => {
    const bucket = gcra(10, 10);
    const decide: Limiter = (now) => bucket(now);
    decide.announce = (now) => ({
      'ratelimit-policy': '"second";q=10;w=1, "hour";q=50;w=3600',
      ratelimit: `"second";r=0;t=1, "hour";r=0;t=${Math.ceil(3500 - now / 1000)}`,
    });
    return decide;
  };
  const e = await discoverVirtual({ limiter: lying, status: 429, announces: 'retry-after' }, { maxDurationS: 60 });
  const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined }, null, 1);
  expect(e.notes.join('\n'), context).not.toMatch(/spent: /);
  expect(e.duration_s, context).toBeGreaterThan(10);
  expect(e.sustained_rps, context).toBeGreaterThan(9.5);
  expect(e.sustained_rps, context).toBeLessThan(10.5);
});

describe('the same limits announcing nothing but what a refusal says', () => {
  // Before, the probe sent into the shut hour for its whole budget (or until max_requests: a
  // bucket of 50/s beside 200 per hour took 2,852 requests in 55 s, all refused, and ended "spent
  // all of rate_limit.max_requests"). A countdown to one moment past the budget, nothing let
  // through for 5 s, stops it as an announced quota does, claiming no quota.
  it('with Retry-After counting down past the budget: stops within seconds, says so, claims no quota, sizes nothing', async () => {
    const e = await discoverVirtual(
      { limiter: () => fromModel(flask), status: 429, announces: 'retry-after' },
      { maxDurationS: 150 },
    );
    const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined }, null, 1);
    expect(e.requests_sent, context).toBeLessThan(300);
    expect(e.duration_s, context).toBeLessThan(30);
    expect(e.notes[0], context).toMatch(
      /^not identified: shut past the probe's budget: \d+ refusals over [\d.]+ s from [\d.]+ s on, nothing let through, each Retry-After counting down to the same moment, 3\d{3}(\.\d)? s away, past the probe's budget \(150 s\), so the probe stopped there; the likeliest cause: the window is longer than the probe's budget \(nothing announced a quota\), or else the limit lifts sooner than its refusals say; not sized; the window is at least 3\d{3}(\.\d)? s long, so sizing it takes at least \d+ s of probing; no setting reaches it: --horizon 3600/,
    );
    // Nothing was announced: no client is sized by an announcement, and no quota is made up.
    expect(e.notes[0]).not.toMatch(/announcement/);
    expect(e.advertised).toBeUndefined();
    expect(e.announced ?? []).toEqual([]);
    expect(e.sustained_rps).toBeNull();
    expect(e.limiter).toBeNull();
    expect(recommend(e)).toBeNull();
  });

  // The probe's stream went on at 10.5 req/s through the shut: from the client's side a limit that
  // counts refusals, held shut by it, looks the same (test/ratelimit/never-lifted.test.ts), so both are said.
  it('with nothing at all: "not tested" says a window past the budget is one cause, how to size one, and the stream the other', async () => {
    const e = await discoverVirtual({ limiter: () => fromModel(flask), status: 429 }, { maxDurationS: 150 });
    const note = e.notes.find((n) => n.startsWith('not identified: '));
    expect(note).toMatch(
      /shut until an edge, not a bucket; not sized; the limit never lifted in the last 14\d\.\d s of the probe's 150 s/,
    );
    expect(note).toMatch(
      /: a window longer than the budget is one cause .* at least 14\d s long, .*; --horizon 2\d\d \(rate_limit\.horizon_s\) gives it/,
    );
    expect(note).toMatch(/; or a limit that counts refused requests, held shut by the probe's own stream/);
    expect(note).not.toMatch(/announcement/);
    expect(e.sustained_rps).toBeNull();
  });

  // A wait alone is no countdown: a service that says "3600" on every refusal names a later moment
  // each time. In front of a window of 10 per 20 s that does lift, the probe never stops on it.
  it('a constant Retry-After of an hour on a window that lifts every 20 s: never stops the probe', async () => {
    const window = fromModel({ kind: 'fixed-window', limit: 10, window_s: 20, phase_s: 0, counts_refused: false });
    const constant = (): Limiter => (now) => (window(now) === undefined ? undefined : 3_600_000);
    const e = await discoverVirtual(
      { limiter: constant, status: 429, announces: 'retry-after' },
      { maxDurationS: 150 },
    );
    const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined }, null, 1);
    expect(e.notes.join('\n'), context).not.toMatch(/shut past the probe's budget/);
    expect(e.duration_s, context).toBeGreaterThan(40);
  });
});

// Flask-Limiter's own quick start, "200 per day" and "50 per hour": the drain meets the hour's 50
// first (the smallest quota, the one tested), but a sustained client meets the day's rate, lower.
// The emulator's windows stop at an hour (serve --limiter window), so this pair is virtual only.
it.each([
  ['an IETF RateLimit-Policy list', undefined, 'RateLimit-Policy'],
  ["Kong's units", kongHeaders, 'X-RateLimit-Limit-Day'],
] as const)(
  'a day and an hour announced as %s: the day binds a sustained client, said beside the hour tested',
  async (_, fields, source) => {
    const dayHour: LimiterSet = [
      { kind: 'fixed-window', limit: 200, window_s: 86400, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 50, window_s: 3600, phase_s: 0, counts_refused: false },
    ];
    const e = await discoverVirtual(
      { limiter: () => advertising(dayHour, undefined, fields), status: 429, announces: 'retry-after' },
      { maxDurationS: 150 },
    );
    const note = e.notes.find((n) => n.startsWith('not identified: '));
    expect(note).toMatch(/announces 50 per 3600 s, about \d+ s of probing to confirm; no setting reaches it/);
    expect(note).toContain(
      `the lowest rate announced, 200 per 86400 s (0.0023 req/s, ${source}), is the one a sustained client meets: announced, not proven, no setting reaches its 86400 s window either`,
    );
    expect(e.sustained_rps).toBeNull();
    const lines = summaryLines(toRateLimitResult(e, null, null));
    expect(lines).toContain(
      `recommend: nothing (no sustained rate measured); announced, not proven: at most 200 per 86400 s (0.0023 req/s, ${source})`,
    );
  },
);
