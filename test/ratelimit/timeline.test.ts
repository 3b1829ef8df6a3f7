// The probe's timeline as report.html charts it: 100 ms slots named by the part of the probe that
// sent them (so the drain, refill, sustained, wait and burst phases can be told apart), 1 s slots
// for a probe too long for that.

import { describe, expect, it } from 'vitest';
import { probeTimeline } from '../../src/ratelimit/timeline.js';
import type { PhaseName, Sample } from '../../src/ratelimit/types.js';

const at = (sentMs: number, phase: PhaseName, answer: Sample['answer'] = 'accepted'): Sample => ({
  sentMs,
  doneMs: sentMs + 2,
  status: answer === 'limited' ? 429 : 200,
  answer,
  phase,
  client: 'primary',
});

describe('probeTimeline', () => {
  it('counts per 100 ms and names each slot by its phase, a silent one "wait"', () => {
    const samples = [
      at(0, 'drain'),
      at(50, 'drain'),
      at(120, 'drain', 'limited'),
      at(130, 'pilot'),
      at(150, 'pilot', 'limited'),
      at(160, 'pilot'),
      at(410, 'idle-burst'),
    ];
    expect(probeTimeline(samples)).toEqual([
      { t: 0, offered: 2, accepted: 2, limited: 0, phase: 'drain' },
      { t: 0.1, offered: 4, accepted: 2, limited: 2, phase: 'refill' },
      { t: 0.2, offered: 0, accepted: 0, limited: 0, phase: 'wait' },
      { t: 0.3, offered: 0, accepted: 0, limited: 0, phase: 'wait' },
      { t: 0.4, offered: 1, accepted: 1, limited: 0, phase: 'burst' },
    ]);
  });

  it('a probe over 30 s keeps whole seconds, so the chart stays a few hundred points', () => {
    const timeline = probeTimeline([at(0, 'window'), at(500, 'window'), at(45_200, 'window', 'limited')]);
    expect(timeline).toHaveLength(46);
    expect(timeline[0]).toEqual({ t: 0, offered: 2, accepted: 2, limited: 0, phase: 'sustained' });
    expect(timeline[45]).toEqual({ t: 45, offered: 1, accepted: 0, limited: 1, phase: 'sustained' });
    expect(probeTimeline([])).toEqual([]);
  });
});
