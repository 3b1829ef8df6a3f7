// The search's bracket (src/ratelimit/rate-bracket.ts): how long the probe saw a limit it did not
// identify stay shut sets each scout's length, the rest before each round and a lower bound of the
// horizon, so it counts only what the probe saw. Once on CI (land34b) a sliding log of 50 per 1 s
// across a network, after a 17 s wait the probe chose itself, was "shut 17.2 s": 18 s scouts over
// a 35 s horizon, and the run ran past its test's 170 s.

import { describe, expect, it } from 'vitest';
import { AFTER_HOLD_REST_S, rateBracket, searchRoundRestS } from '../../src/ratelimit/rate-bracket.js';
import type { Sample } from '../../src/ratelimit/types.js';

const at = (sentMs: number, answer: Sample['answer'], phase: Sample['phase'] = 'recover'): Sample => ({
  sentMs,
  doneMs: sentMs + 100,
  status: answer === 'limited' ? 429 : 200,
  answer,
  phase,
  client: 'primary',
});

/** A drain of 40 at 200 req/s refused at 200 ms, then `after`. */
const probed = (after: Sample[]): Sample[] => [
  ...Array.from({ length: 40 }, (_, i) => at(i * 5, 'accepted', 'drain')),
  at(200, 'limited', 'drain'),
  ...after,
];

/** Pings every `everyMs` from `fromMs` to `toMs`, refused. */
const refusedPings = (fromMs: number, toMs: number, everyMs: number): Sample[] =>
  Array.from({ length: Math.floor((toMs - fromMs) / everyMs) + 1 }, (_, i) => at(fromMs + i * everyMs, 'limited'));

describe('the longest the probe saw the limit shut (RateBracket.restS)', () => {
  it('pinged until it let one back: from the first refusal to that acceptance', () => {
    const bracket = rateBracket(probed([...refusedPings(300, 9_900, 300), at(10_200, 'accepted')]))!;
    expect(bracket.restS).toBe(10);
  });

  it('a pause the probe chose after the last refusal is not seen shut: the spell ends at that refusal', () => {
    const bracket = rateBracket(probed([...refusedPings(300, 900, 100), at(18_100, 'accepted')]))!;
    expect(bracket.restS).toBe(0.7);
  });

  it('a pause no longer than twice its pings’ gaps (at least a second) is still seen shut', () => {
    const bracket = rateBracket(probed([...refusedPings(300, 900, 100), at(2_100, 'accepted')]))!;
    expect(bracket.restS).toBe(1.9);
  });

  it('refused to the end: to the last answer', () => {
    const bracket = rateBracket(probed(refusedPings(300, 3_000, 300)))!;
    expect(bracket.restS).toBe(2.9);
  });
});

// A search's round after a hold rests for k6's bunched start only, whatever the settle time the
// probe's refill reading gave (CI 48a: 8.4 s before each of eight rounds, the cutover still searching
// at 240 s); after a refusal, until the store the drain found is back at the search's first rate.
describe("a search round's rest (searchRoundRestS)", () => {
  const bracket = { restS: 2.1, drained: 139, low: 11 };
  it('after a hold: at most AFTER_HOLD_REST_S, never more than the settle time', () => {
    expect(searchRoundRestS(bracket, { settledS: 8.4, afterHold: true, roundS: 5 })).toBe(AFTER_HOLD_REST_S);
    expect(searchRoundRestS(bracket, { settledS: 0.5, afterHold: true, roundS: 5 })).toBe(0.5);
  });
  it('after a refusal: the settle time, or the store back at the first rate when longer', () => {
    expect(searchRoundRestS(bracket, { settledS: 8.4, afterHold: false, roundS: 5 })).toBe(12.6);
    expect(searchRoundRestS(bracket, { settledS: 30, afterHold: false, roundS: 5 })).toBe(30);
  });
});
