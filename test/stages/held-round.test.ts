// The horizon a report states is the length of the round that proved the policy given: when a round
// lengthened for a span found later held, that round's, and when the loop gives a policy below a hold
// (givenFromHold: 9.1 req/s from a hold at 9.7), the hold's, not the first round's planned length.

import { describe, expect, it } from 'vitest';
import { heldRoundS } from '../../src/stages/rate-limit-proof.js';

describe('heldRoundS', () => {
  const rounds = [
    { target_rps: 24, verdict: 'fails' },
    { target_rps: 9.7, verdict: 'holds' },
  ];

  it('a policy given below the hold that proved it: the hold round’s length', () => {
    expect(heldRoundS(rounds, { target_rps: 9.1 }, [120, 121])).toBe(121);
  });

  it('a policy proven by a round of its own: that round’s length, not a hold further above', () => {
    const three = [...rounds, { target_rps: 8, verdict: 'holds' }];
    expect(heldRoundS(three, { target_rps: 8 }, [120, 121, 125])).toBe(125);
  });

  it('no round held at or above the policy: none', () => {
    expect(heldRoundS(rounds, { target_rps: 9.8 }, [120, 121])).toBeNull();
    expect(heldRoundS(rounds, null, [120, 121])).toBeNull();
  });
});
