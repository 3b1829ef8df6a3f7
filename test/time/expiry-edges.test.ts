// The time-edge rules as a table: no clock, only instants. Each row is a request window (ms on our
// clock) against expires_at = 1000 s, with 1 s of allowed skew unless the row says otherwise.

import { describe, expect, it } from 'vitest';
import {
  acceptanceIsLate,
  judgeLifetime,
  positionOf,
  refusalIsEarly,
  type EdgePosition,
} from '../../src/time/expiry-edges.js';

const E = 1_000;
const skew1 = { clockSkewS: 1 };
const w = (sentS: number, receivedS: number) => ({ sentAt: sentS * 1000, receivedAt: receivedS * 1000 });

describe('positionOf', () => {
  it.each<[string, number, number, number, EdgePosition]>([
    ['a quick answer well before', 990, 990.01, 1, 'certainly-before'],
    ['ending just before the certain edge (E - rounding - skew)', 997.5, 997.99, 1, 'certainly-before'],
    ['ending exactly at the certain edge', 997.5, 998, 1, 'within-uncertainty'],
    ['a slow answer that straddles the edge', 996, 999, 1, 'within-uncertainty'],
    ['inside the second expires_at rounds', 999.5, 999.6, 0, 'within-uncertainty'],
    ['exactly at expires_at', 1000, 1000, 1, 'within-uncertainty'],
    ['sent within rounding + skew after', 1001.9, 1002, 1, 'within-uncertainty'],
    ['sent exactly at E + rounding + skew', 1002, 1002.01, 1, 'certainly-after'],
    ['sent well after', 1010, 1010.5, 1, 'certainly-after'],
    ['a bigger skew widens the uncertainty', 1002.5, 1002.6, 2, 'within-uncertainty'],
  ])('%s', (_why, sent, received, skew, want) => {
    expect(positionOf(w(sent, received), E, { clockSkewS: skew })).toBe(want);
  });

  it('holds a refusal against the service only when certainly before, an acceptance only when certainly after', () => {
    expect(refusalIsEarly(w(990, 990.1), E, skew1)).toBe(true);
    expect(refusalIsEarly(w(999, 999.1), E, skew1)).toBe(false);
    expect(refusalIsEarly(w(1005, 1005.1), E, skew1)).toBe(false);
    expect(acceptanceIsLate(w(1005, 1005.1), E, skew1)).toBe(true);
    expect(acceptanceIsLate(w(1000.5, 1000.6), E, skew1)).toBe(false);
    expect(acceptanceIsLate(w(990, 990.1), E, skew1)).toBe(false);
  });
});

describe('judgeLifetime', () => {
  // The emulator's own way: expires_at = floor(issue) + ttl, so the true lifetime is in (ttl - 1, ttl].
  it.each([
    ['issued at the start of a second', 992.0, 992.005, 8],
    ['issued at the end of a second (3.0 s "left" of a 4 s promise, the old false alarm)', 996.999, 997.0, 4],
    ['a slow answer on a saturated machine', 991.2, 992.9, 8],
    ['a service that rounds up', 991.2, 991.21, 8],
  ])('a conformant %s is consistent', (_why, sent, received, ttl) => {
    expect(judgeLifetime(w(sent, received), E, ttl, skew1).verdict).toBe('consistent');
  });

  it.each<[string, number, number, number, 'shorter' | 'longer']>([
    ['half the promised 8 s (wrong-lifetime)', 996.0, 996.01, 8, 'shorter'],
    ['half the promised 24 h', 1000 - 43_200, 1000 - 43_200 + 0.2, 86_400, 'shorter'],
    ['double the promised 8 s', 984.0, 984.01, 8, 'longer'],
    ['a second more than rounding and skew can explain', 989.9, 989.95, 8, 'longer'],
  ])('%s is %s', (_why, sent, received, ttl, want) => {
    expect(judgeLifetime(w(sent, received), E, ttl, skew1).verdict).toBe(want);
  });

  it('gives the span it judged by: the window, the rounding and the skew', () => {
    expect(judgeLifetime(w(992, 992.5), E, 8, skew1).span).toEqual({ minS: 5.5, maxS: 10 });
  });
});
