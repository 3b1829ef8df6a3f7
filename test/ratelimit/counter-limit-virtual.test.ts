// A sliding-window counter whose window is whole seconds by its edges or announced resets, its
// limit no more than it announces (probe/counter-limit.ts), across 50 ± 10 ms each way
// on the virtual clock. httprate 200 per 10 s, its drain from idle astride an edge, passed 202 and
// 205: read as 202 and 205 per 10 s, 20.2 and 20.5 req/s, above its 20 (3 of 1,200 runs across
// phases, seeds and a busy machine, 30 Nov 2026). Now the limit the service announces, a little
// below what the drain passed, caps it.

import { describe, expect, it } from 'vitest';
import { counterLimit } from '../../src/ratelimit/probe/counter-limit.js';
import { relativeError } from './support.js';
import { discoverVirtual, httprateAcross } from './virtual-limit.js';

describe('a counter whose drain straddled an edge: the window sets the limit', () => {
  it.each([
    { startedBeforeMs: 9883, seed: 60, lateMs: 0, how: 'on time' },
    { startedBeforeMs: 9876, seed: 149, lateMs: 0, how: 'on time' },
    { startedBeforeMs: 7173, seed: 230, lateMs: 20, how: 'timers 20 ms late' },
  ])(
    'httprate 200 per 10 s begun $startedBeforeMs ms before the probe, seed $seed, $how: never above its rate',
    async ({ startedBeforeMs, seed, lateMs }) => {
      const e = await discoverVirtual(httprateAcross(200, 10, startedBeforeMs, { seed, lateMs }), { maxDurationS: 25 });
      const row = `${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.limiter_evidence.join(' | ')}`;
      if (e.limiter !== null) {
        expect(e.limiter.kind, row).toBe('sliding-counter');
        expect(relativeError(e.sustained_rps, 20), row).toBeLessThanOrEqual(0.02);
      } else expect(e.notes.join('\n'), row).toMatch(/not identified|not sized/);
      if (e.sustained_rps !== null) expect(e.sustained_rps, row).toBeLessThanOrEqual(1.005 * 20);
    },
  );
});

describe('counterLimit', () => {
  const heard = (limit?: number) =>
    ({ advertisements: limit === undefined ? {} : { last: { ad: { limit } } } }) as Parameters<typeof counterLimit>[0];
  it('keeps what the drain passed when nothing announced says less', () => {
    expect(counterLimit(heard(), 202)).toBe(202);
    expect(counterLimit(heard(200), 200)).toBe(200);
    expect(counterLimit(heard(210), 200)).toBe(200);
  });
  it('takes the limit announced a little below it, not one far below (another limit)', () => {
    expect(counterLimit(heard(200), 205)).toBe(200);
    expect(counterLimit(heard(100), 205)).toBe(205);
  });
});
