// The run's closing rate-limit line when a proof held a rate but no sustained rate was identified
// (a stack the rounds could not tell apart): it says so in words, never a placeholder such as
// "~? req/s" (issue 35: no "?" printed as a figure).

import { describe, expect, it } from 'vitest';
import { plainText, summaryLines } from '../../src/cli/terminal.js';
import type { RateLimitResult } from '../../src/report/model.js';
import { loadFixture } from '../report/helpers.js';

const closing = (rateLimit: RateLimitResult): string => {
  const report = loadFixture('pass');
  return summaryLines({ ...report, rate_limit: rateLimit }, 'r')
    .map(plainText)
    .join('\n');
};

describe('the closing rate-limit line', () => {
  const sized = loadFixture('pass').rate_limit;

  it('states the sustained rate when one was identified', () => {
    expect(sized?.recommendation).toBeTruthy();
    expect(closing({ ...sized!, sustained_rps: 49.5 })).toMatch(/rate limit: ~49\.5 req\/s sustained; recommend /);
  });

  // A rate seen over seconds of probing is no promise for an hour: the line says over how long.
  it('says how long the probe that measured the sustained rate ran', () => {
    expect(closing({ ...sized!, sustained_rps: 49.5, duration_s: 15.2 })).toMatch(
      /rate limit: ~49\.5 req\/s sustained, measured over 15 s of probing; recommend /,
    );
  });

  it('beside an announced limit, the probing span goes with the rate the probe measured', () => {
    const announced = { limit: 600, window_s: 60, source_header: 'RateLimit-Policy', agrees: null, measured_rps: 30 };
    expect(closing({ ...sized!, sustained_rps: 10, duration_s: 6, sustained_announced: announced })).toMatch(
      /rate limit: ~10 req\/s sustained \(announced 600 per 60 s, not proven; measured 30 req\/s over 6 s of probing for one limit of several\); recommend /,
    );
  });

  // Issue 35 item 4: no kind identified, the rate a paced search held heads the line, said as held
  // by k6 rounds over their span, not as "~X measured over the probe", with where a round was refused.
  it('a rate a search held: over how long k6 rounds held it, the kind not identified, and where the limit lies', () => {
    const held = { ...sized!, sustained_rps: 4.9, duration_s: 20.5, limiter: null };
    expect(closing({ ...held, sustained_held: { held_s: 120, refused_rps: 5.1 } })).toMatch(
      /rate limit: 4\.9 req\/s sustained, held for 120 s by paced k6 rounds, the limiter not identified; a round paced at 5\.1 req\/s was refused; recommend /,
    );
    expect(closing({ ...held, sustained_held: { held_s: 120, refused_rps: null } })).toMatch(
      /rate limit: 4\.9 req\/s sustained, held for 120 s by paced k6 rounds, the limiter not identified; no round above it was refused; recommend /,
    );
  });

  it('says the sustained rate was not identified, with no placeholder, when only a proof held a rate', () => {
    const line = closing({ ...sized!, sustained_rps: null });
    expect(line).toMatch(/rate limit: sustained rate not identified; recommend /);
    expect(line).not.toMatch(/\?/);
  });
});
