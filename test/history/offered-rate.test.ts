// The count before the first 429 depends on the rate the check's burst reached, which a loaded
// machine holds down: the same token bucket (50/s, 50 at once) admits 67 of a 200/s burst and 183
// of a 69/s one, as the scheduled workflow test once saw on a busy 2-core machine. The check's
// burst on the virtual clock, then the history's comparison of what it recorded: a slow run of an
// unchanged service is "not compared", never a regression, and a burst that truly shrank still is.

import { describe, expect, it } from 'vitest';
import { comparison } from '../../src/history/compare.js';
import { trendsOf } from '../../src/history/trends.js';
import type { FactValue } from '../../src/history/record.js';
import { burstFacts } from '../runner/burst-facts.js';
import { steadyRecord } from './records.js';

/** A stored run (or this one) whose check recorded `facts`. */
function recordWith(i: number, facts: Record<string, FactValue>) {
  const r = steadyRecord(i);
  r.checks['ratelimit.limit-enforced']!.facts = facts;
  return r;
}

const names = (c: ReturnType<typeof comparison>) => c.findings.map((f) => `${f.kind} ${f.subject} ${f.name}`);

describe('the check burst count in the history, at the rate the machine reached', () => {
  it('a slow burst against the unchanged bucket is not compared, and a shrunk bucket at either rate is a regression', async () => {
    const idle = await burstFacts({ rps: 50, burst: 50 });
    // 14.5 ms of client work per request: about 69/s, the rate of the run that failed.
    const loaded = await burstFacts({ rps: 50, burst: 50 }, 14.5);
    // B·R/(R − r): 50·200/150 ≈ 67 (a few more answered while the 429 was on its way), 50·69/19 ≈ 180.
    expect(idle['offered_rps']).toBeGreaterThan(190);
    expect(idle['accepted_before_limit']).toBeGreaterThanOrEqual(66);
    expect(idle['accepted_before_limit']).toBeLessThan(75);
    expect(loaded['offered_rps']).toBeLessThan(75);
    expect(loaded['accepted_before_limit']).toBeGreaterThan(150);

    const stored = [0, 1, 2, 3, 4, 5].map((i) => recordWith(i, idle));
    // The unchanged service on a loaded machine: no change claimed. The runs offered faster are a
    // floor for its count (a slower burst gets no fewer through), so only a fall is judged, and the
    // report says a rise was not.
    const slow = comparison(recordWith(6, loaded), stored, 10);
    expect(names(slow)).toEqual([]);
    expect(slow.notCompared).toHaveLength(1);
    expect(slow.notCompared[0]!.text).toBe(
      `ratelimit.limit-enforced: accepted_before_limit ${loaded['accepted_before_limit']} judged for a fall only: its burst was offered at ${loaded['offered_rps']}/s, and 0 of the last 6 runs within ×1.2 of that (3 needed; the stored runs' ${idle['offered_rps']}/s); the 6 runs offered faster (${idle['offered_rps']}/s) bound it from below, so a rise is not compared`,
    );
    // report.html's chart draws that band on its judged side only (report/since.test.ts).
    const chartOf = (t: ReturnType<typeof trendsOf>) => t.series.find((x) => x.name === 'accepted_before_limit')!;
    expect(chartOf(trendsOf(recordWith(6, loaded), stored, 10)).side).toBe('down');
    expect(chartOf(trendsOf(recordWith(6, idle), stored, 10)).side).toBeUndefined();
    // The other way round, a quick run after loaded ones: bounded from above, and nothing rose.
    const loadedPast = [0, 1, 2, 3, 4, 5].map((i) => recordWith(i, loaded));
    const quick = comparison(recordWith(6, idle), loadedPast, 10);
    expect(names(quick)).toEqual([]);
    expect(quick.notCompared[0]!.text).toMatch(
      /judged for a rise only: .* bound it from above, so a fall is not compared$/,
    );

    // Slow runs compare with slow runs: a second loaded run among three stored ones is judged, and nothing changed.
    const slowPast = [...stored, ...[7, 8, 9].map((i) => recordWith(i, loaded))];
    expect(comparison(recordWith(10, loaded), slowPast, 10)).toEqual({ findings: [], notCompared: [] });

    // The bucket halved (25/s, 25 at once): the count falls at the same rate, idle or loaded.
    const halved = await burstFacts({ rps: 25, burst: 25 });
    expect(names(comparison(recordWith(6, halved), stored, 10))).toEqual([
      'rate_limit ratelimit.limit-enforced accepted_before_limit',
    ]);
    const halvedLoaded = await burstFacts({ rps: 25, burst: 25 }, 14.5);
    expect(names(comparison(recordWith(10, halvedLoaded), slowPast, 10))).toEqual([
      'rate_limit ratelimit.limit-enforced accepted_before_limit',
    ]);
    // Halved on a loaded machine, every stored run quick (CI ci-38f: offered 148/s, the stored runs
    // 47.6–200/s, none within ×1.2): the faster runs' counts are a floor, and it fell through it.
    const halvedSlow = comparison(recordWith(6, halvedLoaded), stored, 10);
    expect(names(halvedSlow)).toEqual(['rate_limit ratelimit.limit-enforced accepted_before_limit']);
    expect(halvedSlow.findings[0]!.text).toMatch(/below the band .* of the last 6 runs offered faster \(200\/s\)$/);
  });
});

describe("the check burst count in the history, whatever the pace of the run's earlier checks", () => {
  // The checks before the burst send with the same credentials, so the service's limiter counts them
  // too. Measured against the emulator (50/s, 50 at once) on an idle machine: 21 such requests in the
  // 0.2 s before the burst, the last answered 16–21 ms before it, and a count of 50; a busy machine
  // spreads them out and ends them longer before the burst (the scheduled-workflow test's run 6: 66).
  const quick = { atMs: Array.from({ length: 21 }, (_, i) => i * 8), gapMs: 18 };
  const slow = { atMs: Array.from({ length: 21 }, (_, i) => i * 40), gapMs: 600 };

  it('an unchanged service gives the same count after quick and after slow earlier checks, and a halved bucket is still flagged', async () => {
    const afterQuick = await burstFacts({ rps: 50, burst: 50 }, 0, quick);
    const afterSlow = await burstFacts({ rps: 50, burst: 50 }, 0, slow);
    // The full bucket's B·R/(R − r) ≈ 67 both times: the earlier requests have aged out of it.
    expect(afterQuick['accepted_before_limit']).toBeGreaterThanOrEqual(66);
    expect(afterQuick).toEqual(afterSlow);
    expect(afterQuick).toEqual(await burstFacts({ rps: 50, burst: 50 }));

    // Runs 1–5 stored after quick earlier checks, run 6 after slow ones: nothing changed.
    const stored = [0, 1, 2, 3, 4].map((i) => recordWith(i, afterQuick));
    expect(comparison(recordWith(5, afterSlow), stored, 10)).toEqual({ findings: [], notCompared: [] });

    // The bucket halved, the earlier checks quick or slow: a regression either way.
    for (const earlier of [quick, slow]) {
      const halved = await burstFacts({ rps: 25, burst: 25 }, 0, earlier);
      expect(names(comparison(recordWith(5, halved), stored, 10))).toEqual([
        'rate_limit ratelimit.limit-enforced accepted_before_limit',
      ]);
    }
  });
});
