// The line refused rounds' quotas lie on (quota-line.ts): read off a bucket's rounds as CI land31
// and land34 saw them, with a hold's own late refusal among them, and no line where the quota does
// not grow with the round (a window), where two rounds are too close to read its refill, or where
// the points stray from one line; and the round a search runs once more to read a line it cannot.

import { describe, expect, it } from 'vitest';
import { heldOnStoreText, lineBelow, lineText, quotaLine, spreadingRps } from '../../src/ratelimit/quota-line.js';
import type { ProofRound } from '../../src/report/model.js';

type Seen = Pick<ProofRound, 'target_rps' | 'verdict' | 'refusals_began_s'>;
const held = (rps: number, beganS?: number): Seen => ({
  target_rps: rps,
  verdict: 'holds',
  ...(beganS !== undefined ? { refusals_began_s: beganS } : {}),
});
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
    // Each first refusal read to ± 2 requests, 1.665 s apart: the refill is claimed to ± 2.4 req/s, no closer.
    expect(line!.refill_error_rps).toBe(2.4);
    expect(line!.points.map((p) => p.round)).toEqual([3, 4]);
    // A client at the 55 that held 5 s lasts about 9 s on the store; a hold at or below the refill
    // (49) has nothing to correct, nor does a search that held nothing.
    const rounds = [held(44), held(55), refused(68, 2.795), refused(61, 4.46)];
    expect(lineBelow(rounds, 55)).toEqual(line);
    expect(heldOnStoreText(line!, 55)).toMatch(/so a client paced at 55 req\/s is refused after about 9 s$/);
    expect(lineBelow(rounds, 49)).toBeNull();
    expect(lineBelow(rounds, null)).toBeNull();
    expect(lineText(line!)).toBe(
      'rounds 3 and 4, refused after about 190 and 272 requests, lie on 52 stored + 49.25 ± 2.4 req/s refilled',
    );
  });

  // CI land34: the same bucket, rounds at 66 and 62 req/s refused after about 189 and 234 requests,
  // 0.91 s apart; a fixed 1 s minimum left no line, and 59 req/s, held 5 s on the store, stood.
  it('two rounds 0.91 s apart read a refill of 50 within 10 %: a line (CI land34)', () => {
    const rounds = [refused(66, 2.864), refused(62, 3.774), held(59)];
    const line = lineBelow(rounds, 59);
    expect(line?.refill_rps).toBeCloseTo(49.5, 0);
    expect(spreadingRps(rounds, 59)).toBeNull();
    // Points on that line (47 + 49.5·t) 0.38 s apart read the slope to ± 10.6 req/s only: no line,
    // and one more round, refused early on it: its last point, 3.24 s, less twice the 0.81 s needed
    // is 1.62 s, at 49.5 + 47 / 1.62 = 78.5 req/s.
    const at = (rps: number) => refused(rps, 47 / (rps - 49.5));
    const close = [at(66), at(64), held(59)];
    expect(quotaLine(close)).toBeNull();
    const spread = spreadingRps(close, 59)!;
    expect(spread).toBeCloseTo(78.5, 0);
    // Where that round meets the same line, the three read it.
    expect(lineBelow([...close, at(spread)], 59)?.refill_rps).toBeCloseTo(49.5, 1);
    // No round is run for a hold the line does not bind below, nor for no hold.
    expect(spreadingRps(close, 45)).toBeNull();
    expect(spreadingRps(close, null)).toBeNull();
  });

  it("a hold's own late first refusal is a point: 60 req/s first refused after 4.9 s, beside 65 refused after 3.3", () => {
    const rounds = [held(48), held(60, 4.917), refused(70, 0.586), refused(65, 3.277)];
    const line = lineBelow(rounds, 60);
    expect(line?.refill_rps).toBeCloseTo(50, 0);
    expect(line!.points.map((p) => p.round)).toEqual([2, 4]);
    // A hold at or below the refill met its refusal by the network's jitter: the line is read without it.
    const jittered = [held(48, 2), refused(66, 2.864), refused(62, 3.774), held(59)];
    expect(lineBelow(jittered, 59)?.points.map((p) => p.round)).toEqual([2, 3]);
  });

  // A counter of 50 per 10 s counting refused requests before a bucket of 4 per second with a store
  // of 60 (unidentified-search-virtual, phase 0, seed 1): the counter refused 5.6 and 5.4 req/s after
  // 43 and 30 requests and let nothing through for 10-13 s; the bucket refused 5 req/s after 59 s and
  // 4.5 after 118 s, a hold within the promise, each let through again 2-4 s later. All the points but
  // the held one lay on 4 + 4.94·t, above the hold, and 4.5 req/s stood as sustained (true 4).
  it('points another limit refused sooner lie below the line the later ones read: the counter before a bucket of 4 per second', () => {
    const again = (r: Seen, againS: number) => ({ ...r, admitted_again_s: againS });
    const rounds = [
      { ...held(4.5), arrivals: 103 },
      again(refused(5.6, 7.679), 17.871),
      again(refused(5.4, 5.556), 18.193),
      again(refused(5, 59), 61.45),
      again(held(4.5, 118), 121.68),
    ];
    const line = lineBelow(rounds, 4.5);
    expect(line).toMatchObject({ refill_rps: 4, stored: 59 });
    expect(line!.points.map((p) => p.round)).toEqual([4, 5]);
    // Rounds not known to have been let through again soon (a window stays shut to its edge): no
    // line of the later points alone, and the one through them all is above the hold.
    const shut = rounds.map((r) => ({ ...r, admitted_again_s: undefined }));
    expect(quotaLine(shut)?.refill_rps).toBeCloseTo(4.94, 2);
    expect(lineBelow(shut, 4.5)).toBeNull();
    // An earlier point above the later line (the limit let more through than it allows): no line of them.
    const above = [...rounds.slice(0, 3), again(refused(7, 40), 55), ...rounds.slice(3)];
    expect(quotaLine(above)?.refill_rps ?? null).not.toBe(4);
  });

  it('one round refused after a quota above a hold: one more, faster, to read the refill (bucket 50/s, 56 held 5 s)', () => {
    const rounds = [held(50), refused(62, 4.097), held(56)];
    expect(quotaLine(rounds)).toBeNull();
    // A quarter faster (77.5) is more than twice the hold's distance above it (74).
    expect(spreadingRps(rounds, 56)).toBe(77.5);
    expect(spreadingRps([held(50), refused(62, 0.4), held(56)], 56)).toBeNull();
    expect(spreadingRps([held(50), refused(55, 4.097), held(56)], 56)).toBeNull();
  });

  // The bench's bucket of 100/s before a window of 200 per 10 s (2 Dec): the refused rounds lie on
  // 23 stored + 19.49 req/s, which has 20 req/s refused after about 45 s, and 20 req/s ran 120 s
  // without a single 429. The line is refuted: the hold stands, and no sentence says it lived on a store.
  it('no line that a round run longer without a refusal refutes: 20 req/s held 120 s where the line had it refused after 45 s', () => {
    const rounds: Array<Seen & { arrivals?: number }> = [
      { ...held(15), arrivals: 240 },
      { ...held(18), arrivals: 252 },
      { ...refused(22, 9.4), arrivals: 242 },
      { ...refused(21, 15.6), arrivals: 1218 },
      { ...held(20), arrivals: 2400 },
    ];
    expect(quotaLine(rounds.slice(0, 4))?.refill_rps).toBeCloseTo(19.49, 1);
    expect(quotaLine(rounds)).toBeNull();
    expect(lineBelow(rounds, 20)).toBeNull();
    // Held 30 s only, the same round is what the line says it is: a hold on the store.
    const short = rounds.map((r) => (r.target_rps === 20 ? { ...r, arrivals: 600 } : r));
    expect(lineBelow(short, 20)?.refill_rps).toBeCloseTo(19.49, 1);
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
