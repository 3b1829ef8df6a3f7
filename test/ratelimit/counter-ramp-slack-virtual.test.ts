// A sliding-window counter's ramp (probe/counter-ramp.ts) on a busy machine across 50 ± 10 ms each
// way, on the virtual clock: go-chi/httprate Limit(200, 10 s) as the real one runs in
// test/integration/ratelimit-network-kinds.test.ts (its windows begun with its process, up to 2 s
// before the probe; epoch resets), every timer and hand-over of the probe up to 10 ms late. Its
// lattice points are found by pings a few ms apart, which begin a round trip after the last answer:
// the counter has freed a step or two meanwhile, spent by the first pings. Before (30 Nov 2026), an
// acceptance the limiter saw before the pings' first refusal (the two swapped on the way) was taken
// for a lattice point: one step miscounted over 146, the window read 9.943 s, 20.11 req/s, above
// the limiter's 20 (1 of 24 phases here; CI land19, real, the same 9.943 s). Now a lattice point is
// an acceptance surely after that first refusal, or one step more or fewer is allowed for.

import { describe, expect, it } from 'vitest';
import { sustainedRate } from '../../src/ratelimit/limiters/index.js';
import { relativeError, slidingCounter } from './support.js';
import { discoverVirtual, httprateAcross } from './virtual-limit.js';

const PHASES = 24;

describe('a sliding-window counter ramp after a round trip of quiet, the probe 10 ms late', () => {
  it(`httprate 200 per 10 s begun up to 2 s before the probe, ${PHASES} phases: never above its rate`, async () => {
    const truth = slidingCounter(200, 10);
    const rows: string[] = [];
    const counts = { sized: 0, 'not identified': 0, other: 0 };
    for (let i = 0; i < PHASES; i++) {
      const seed = i + 1;
      const e = await discoverVirtual(httprateAcross(200, 10, (i * 137) % 2000, { seed, lateMs: 10 }), {
        maxDurationS: 25,
      });
      const ok = e.limiter?.kind === truth.kind && relativeError(e.sustained_rps, sustainedRate(truth)) <= 0.02;
      counts[ok ? 'sized' : e.limiter === null ? 'not identified' : 'other']++;
      rows.push(`phase ${i}: ${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.notes[0]}`);
      // The real test's bound: a window's figure is its limit over its length, never above the truth beyond the ramp's precision.
      if (e.sustained_rps !== null) expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual(1.005 * 20);
    }
    expect(counts, rows.join('\n')).toEqual({ sized: 24, 'not identified': 0, other: 0 });
  });
});

// The lattice point's lower end: the refusal right before its acceptance may have reached the
// limiter after it (a leg 20 ms late put its middle 7 ms past the acceptance's). Taken from it,
// the point was put 24 ms late, one of 49 steps: the window read 9.934 s, 20.13 req/s (httprate
// 200 per 10 s begun 5.495 s before the probe, jitter seed 136; 3 of 1,200 runs across phases,
// seeds and a busy machine, 30 Nov 2026). Now it is the last refusal surely seen before it.
describe('a sliding-window counter ramp whose refused ping overtook the acceptance', () => {
  it('httprate 200 per 10 s begun 5.495 s before the probe, jitter seed 136: never above its rate', async () => {
    const e = await discoverVirtual(httprateAcross(200, 10, 5495, { seed: 136 }), { maxDurationS: 25 });
    const row = `${JSON.stringify(e.limiter)} ${e.sustained_rps} req/s; ${e.limiter_evidence.join(' | ')}`;
    expect(e.limiter?.kind, row).toBe('sliding-counter');
    expect(relativeError(e.sustained_rps, 20), row).toBeLessThanOrEqual(0.02);
    expect(e.sustained_rps!, row).toBeLessThanOrEqual(1.005 * 20);
  });
});
