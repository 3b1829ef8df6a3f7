// go-chi/httprate 200 per 10 s announcing epoch seconds (test/integration/ratelimit-network-kinds.test.ts's
// row through toxiproxy), on a busy machine (every timer, departure and hand-over up to 20 ms late,
// virtual-limit.ts `busy`), across 50 ± 10 ms each way: where its shape was read off a drain whose
// window the one before weighed, the client came back 20–22 s after that drain began, two windows,
// as a sliding-window counter's comeback can be. The stream sized by the period (discover.ts,
// streamedSlidingWindow) read 10.4–10.8 s, and the report said "refused requests probably count
// against the client": false of httprate, which counts only what it admits, and in quiet precise
// phases of the real tier it ended so with a stream that read 10.03 s and a comeback at 18.15 s (29
// Nov 2026). Now a comeback that late is looked for where the announced resets turn first, and
// when that does not tell, the note says what could explain it; nothing is claimed of refusals.

import { describe, expect, it } from 'vitest';
import { sustainedRate } from '../../src/ratelimit/limiters/index.js';
import { relativeError, slidingCounter } from './support.js';
import { discoverVirtual, httprateAcross } from './virtual-limit.js';

describe('a sliding-window counter back two windows after a drain, on a busy machine', () => {
  it.each([
    { startedBeforeMs: 7503, seed: 2 },
    { startedBeforeMs: 9753, seed: 1 },
    { startedBeforeMs: 9753, seed: 2 },
  ])(
    'httprate 200 per 10 s started $startedBeforeMs ms before the probe, jitter seed $seed: never said to count refusals',
    async ({ startedBeforeMs, seed }) => {
      const truth = slidingCounter(200, 10);
      const e = await discoverVirtual(
        httprateAcross(200, 10, startedBeforeMs, { seed, lateMs: 20, busySeed: seed + 1000 }),
        { maxDurationS: 25 },
      );
      const row = `${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s\n${e.notes.join('\n')}`;
      if (e.limiter !== null) {
        expect(e.limiter.kind, row).toBe('sliding-counter');
        expect(relativeError(e.sustained_rps, sustainedRate(truth)), row).toBeLessThanOrEqual(0.02);
      } else expect(e.notes.join('\n'), row).toMatch(/a sliding-window counter's can .*; not sized/);
      expect(e.notes.join('\n'), row).not.toMatch(/refused requests (probably|may) count/);
    },
  );
});
