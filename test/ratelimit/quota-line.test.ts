// The line refused rounds' quotas lie on (quota-line.ts): read off a bucket's rounds as CI land31
// saw them, and no line where the quota does not grow with the round (a window), where two rounds
// are too close to slope, or where the points stray from one line.

import { describe, expect, it } from 'vitest';
import { heldOnStoreText, lineBelow, lineText, quotaLine } from '../../src/ratelimit/quota-line.js';
import type { ProofRound } from '../../src/report/model.js';

type Seen = Pick<ProofRound, 'target_rps' | 'verdict' | 'refusals_began_s'>;
const held = (rps: number): Seen => ({ target_rps: rps, verdict: 'holds' });
const refused = (rps: number, beganS: number): Seen => ({
  target_rps: rps,
  verdict: 'fails',
  refusals_began_s: beganS,
});

describe('the line refused rounds lie on', () => {
  it('a bucket of 50 per second, burst 50, across toxiproxy (CI land31): 52 stored + 49.2 req/s', () => {
    const line = quotaLine([held(44), held(55), refused(68, 2.795), refused(61, 4.46)]);
    expect(line).not.toBeNull();
    expect(line!.refill_rps).toBeCloseTo(49.2, 1);
    expect(line!.stored).toBe(52);
    expect(line!.points.map((p) => p.round)).toEqual([3, 4]);
    // A client at the 55 that held 5 s lasts about 9 s on the store; a hold at or below the refill
    // (49) has nothing to correct, nor does a search that held nothing.
    const rounds = [held(44), held(55), refused(68, 2.795), refused(61, 4.46)];
    expect(lineBelow(rounds, 55)).toEqual(line);
    expect(heldOnStoreText(line!, 55)).toMatch(/so a client paced at 55 req\/s is refused after about 9 s$/);
    expect(lineBelow(rounds, 49)).toBeNull();
    expect(lineBelow(rounds, null)).toBeNull();
    expect(lineText(line!)).toBe(
      'rounds 3 and 4, refused after about 190 and 272 requests, lie on 52 stored + 49.25 req/s refilled',
    );
  });

  it.each<[string, Seen[]]>([
    // A window of 200 met from rest: as many let through however fast, no slope.
    ['a quota that does not grow with the round', [refused(40, 5), refused(50, 4)]],
    ['one refused round', [held(44), refused(68, 2.8)]],
    ['refusals from the start (no quota)', [refused(68, 0.2), refused(61, 0.4)]],
    ['two rounds refused too close in time to slope', [refused(68, 2.8), refused(67, 3.1)]],
    ['a slope as fast as a rate refused', [refused(20, 2), refused(30, 4)]],
    ['three points off one line', [refused(68, 2.8), refused(61, 4.5), refused(64, 8)]],
    [
      'rounds failed without a refusal',
      [
        { target_rps: 60, verdict: 'fails' },
        { target_rps: 70, verdict: 'fails' },
      ],
    ],
  ])('none from %s', (_, rounds) => {
    expect(quotaLine(rounds)).toBeNull();
  });
});
