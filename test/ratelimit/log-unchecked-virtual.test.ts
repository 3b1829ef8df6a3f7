// A silent sliding log the period trials sized is claimed only once a clump at another phase was let
// back a period after it (probe/log-phase.ts): a silent sliding-window counter fools the trials, each
// clump let back at the counter's next edge on the clock. In a 25 s probe that check may not fit at
// all. Before (30 Nov 2026), httprate's recipe 50 per 1 s, silent, at 80 phases of its window, was
// read as a log 19–71 % fast at 3, none checked: 50 per 0.586 s (85.32 req/s; its k6 proof refuted
// it), 50 per 0.838 s (59.67 req/s, proven at 47 and reported so) and 0.837 s. Now none is claimed:
// not identified, said why (the stage searches the rate with k6). On the virtual clock, loopback.

import { describe, expect, it } from 'vitest';
import { NOT_IDENTIFIED } from '../../src/ratelimit/evidence.js';
import { slidingCounter } from './support.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

describe('a sliding log no clump at another phase checked', () => {
  it.each([
    { phaseS: 30 / 80, before: '50 per 0.586 s, 85.32 req/s' },
    { phaseS: 28 / 80, before: '50 per 0.838 s, 59.67 req/s' },
  ])(
    'a silent counter 50 per 1 s at phase $phaseS s in 25 s (before: a log of $before): not claimed',
    async ({ phaseS }) => {
      const e = await discoverVirtual(
        { limiter: () => fromModel(slidingCounter(50, 1, phaseS)), status: 429 },
        { maxDurationS: 25 },
      );
      const row = `${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.notes.join(' | ')}`;
      expect(e.limiter?.kind, row).not.toBe('sliding-window');
      if (e.sustained_rps !== null) expect(e.sustained_rps, row).toBeLessThanOrEqual(50 * 1.02);
      if (e.limiter === null) {
        expect(e.notes.join('\n'), row).toMatch(/no clump at another phase/);
        // The note the stage reads to search the rate with k6 (src/stages/rate-limit.ts): without
        // it, nothing sized and nothing searched.
        expect(
          e.notes.some((n) => n.startsWith(NOT_IDENTIFIED)),
          row,
        ).toBe(true);
      }
    },
  );

  it('a true log 50 per 1 s across 20 ± 5 ms, in the same 25 s: one clump checks it, ten jitter seeds', async () => {
    const rows: string[] = [];
    let logs = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const e = await discoverVirtual(
        {
          limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }),
          status: 429,
          network: { oneWayMs: 20, jitterMs: 5, seed },
        },
        { maxDurationS: 25 },
      );
      if (e.limiter?.kind === 'sliding-window') logs++;
      else expect(e.limiter, `seed ${seed}: ${e.notes.join(' | ')}`).toBeNull();
      rows.push(`seed ${seed}: ${JSON.stringify(e.limiter)} ${e.notes[0]}`);
    }
    // 10 of 10 before; one seed's clump did not fit (not identified, said so).
    expect(logs, rows.join('\n')).toBe(9);
  });
});
