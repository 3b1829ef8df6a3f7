// Never report what was refuted (issue 35 item 5), a set of limits included: the sustained rate is
// the highest paced rate never refused over the horizon, and a set whose lowest limit sustains more
// than a rate a round was refused at is the explanation, not the headline. Two sliding logs, 10 per
// 1 s and 300 per 60 s (true 5 req/s), sized on the virtual clock (stack-sizing.ts): the rounds at
// 8 and 5.1 req/s were refused, 4.5 held, and the set identified from them, HAProxy's interpolated
// window of 306 per 60 s, was reported as "sustained 5.1 req/s" beside the round refused at 5.1.

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
    const { estimate, outcome, identified } = await sizeTimed(LOGS);
    const context = JSON.stringify({ identified, rounds: outcome.rounds });
    const refused = Math.min(...refutingRounds(outcome.rounds).map((r) => r.target_rps));
    // The case: the inference names a set sustaining at least a rate that was refused.
    expect(identified && 'set' in identified && identified.sustained_rps >= refused, context).toBe(true);
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
