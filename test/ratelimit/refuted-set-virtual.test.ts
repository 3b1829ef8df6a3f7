// Never report what was refuted (issue 35 item 5), a set of limits included: the sustained rate is
// the highest paced rate never refused over the horizon, and a set whose lowest limit sustains more
// than a rate a round was refused at is the explanation, not the headline. Two sliding logs, 10 per
// 1 s and 300 per 60 s (true 5 req/s), sized on the virtual clock (stack-sizing.ts): the rounds at
// 8 and 5.1 req/s were refused, 4.5 held, and the set identified from them, HAProxy's interpolated
// window of 306 per 60 s, was reported as "sustained 5.1 req/s" beside the round refused at 5.1.
// The inference now claims the middle of the sets the rounds leave standing (305 per 60 s, 5.08
// req/s), so the run no longer names that set itself: the test hands the report the set it named
// then, beside the same run's rounds.

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { refutingRounds, withoutRefuted } from '../../src/ratelimit/refuted.js';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import { sizeTimed } from './stack-sizing.js';

const LOGS: LimiterSet = [
  { kind: 'sliding-window', limit: 10, period_s: 1, counts_refused: false },
  { kind: 'sliding-window', limit: 300, period_s: 60, counts_refused: false },
];

describe('a set identified above a rate a round was refused at', () => {
  it('is not the headline: the highest hold is, the set named only as what explains the rounds', async () => {
    const { estimate, outcome, identified: inferred } = await sizeTimed(LOGS);
    const refused = Math.min(...refutingRounds(outcome.rounds).map((r) => r.target_rps));
    expect(inferred && 'set' in inferred, JSON.stringify(inferred)).toBe(true);
    // The case: a set the rounds left standing, sustaining the rate a round was refused at.
    const first = (inferred as { set: LimiterSet }).set[0]!;
    const identified = {
      set: [first, { ...LOGS[1]!, limit: Math.round(refused * 60), counter: 'interpolated' }] as LimiterSet,
      sustained_rps: refused,
      evidence: 'identified from all the evidence',
    };
    const context = JSON.stringify({ identified, rounds: outcome.rounds });
    const shown = withoutRefuted(estimate, outcome.rounds, identified);
    expect(shown.sustained_rps!, context).toBeLessThan(refused);
    expect(shown.sustained_rps!, context).toBe(
      Math.max(...outcome.rounds.filter((r) => r.verdict === 'holds').map((r) => r.target_rps)),
    );
    expect(shown.limiter, context).toBeNull();
    expect(shown.limiters, context).toBeUndefined();
    const said = shown.notes.join('\n');
    expect(said, context).toContain(`${NOT_IDENTIFIED}as a set of limits: `);
    expect(said, context).toContain('is not what holds');
    // Its figure appears in no note as the sustained rate.
    if (identified && 'set' in identified)
      expect(said, context).not.toContain(`sustained ${identified.sustained_rps} req/s`);
  });
});
