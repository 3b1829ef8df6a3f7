// The bench's closing table: every row of issue 37 against its goal, measured or saying which
// section gives it.

import { describe, expect, it } from 'vitest';
import { goalsSection } from '../../bench/goals.js';
import { HEALTH, HEALTH_AS_HARNESS, HEALTH_AS_SCENARIO, type LoadBenchResult } from '../../bench/k6-vs-wrk.js';

const row = (tool: 'k6' | 'wrk', concurrency: number, rps: number, endpoint = HEALTH) =>
  ({ tool, endpoint, concurrency, rps }) as LoadBenchResult['rows'][number];

describe('goalsSection', () => {
  it('lists all six rows, each naming the section that measures it when it did not run', () => {
    const s = goalsSection({});
    expect(s.rows.map((r) => r[0])).toHaveLength(6);
    expect(s.rows.every((r) => /^not measured in this run \(`npm run bench -- [a-z-]+`\)$/.test(r[4]!))).toBe(true);
  });

  it.each([
    [38_000, 'met'],
    [56_500, 'missed'],
  ])('npm start in %i ms: %s', (wallMs, verdict) => {
    const s = goalsSection({
      mainJob: { what: 'npm start', wallMs, cpuS: 12.5, outcome: 'exit 0, PASS', stages: 'checks 9.0 s' },
    });
    expect(s.rows[0]!.slice(1)).toEqual([
      `${(wallMs / 1000).toFixed(2)} s`,
      '≤ 40.00 s',
      verdict,
      'CPU 12.5 s; exit 0, PASS; checks 9.0 s',
    ]);
  });

  it('npm start under the goal with a run that did not pass: missed', () => {
    const s = goalsSection({
      mainJob: {
        what: 'npm start',
        wallMs: 30_000,
        cpuS: 9,
        outcome: 'exit 0, PASS ×2, exit 1, FAIL',
        notPassed: true,
      },
    });
    expect(s.rows[0]![3]).toBe('missed');
  });

  it('reads k6 as a harness scenario / wrk at each concurrency, met only when every one reaches 0.8×, bare k6 beside it', () => {
    // The bare and dashboard-only k6 rows are faster: the goal is k6 as a harness scenario runs it.
    const load = (k6At64: number) =>
      ({
        rows: [
          row('k6', 16, 990),
          row('k6', 16, 950, HEALTH_AS_HARNESS),
          row('k6', 16, 850, HEALTH_AS_SCENARIO),
          row('wrk', 16, 1000),
          row('k6', 64, 990),
          row('k6', 64, 940, HEALTH_AS_HARNESS),
          row('k6', 64, k6At64, HEALTH_AS_SCENARIO),
          row('wrk', 64, 1000),
        ],
      }) as LoadBenchResult;
    expect(goalsSection({ load: load(900) }).rows[3]!.slice(1, 4)).toEqual(['0.85× / 0.90×', '≥ 0.8× each', 'met']);
    expect(goalsSection({ load: load(630) }).rows[3]!.slice(1, 4)).toEqual(['0.85× / 0.63×', '≥ 0.8× each', 'missed']);
    expect(goalsSection({ load: load(630) }).rows[3]![4]).toBe(
      'at 16 / 64 VUs and connections, k6 as a scenario runs; bare k6 0.99× / 0.99×, bare + the web dashboard 0.95× / 0.94×; wrk 1,000/s / 1,000/s',
    );
  });

  it('has no k6 figure when only bare k6 ran beside wrk', () => {
    const load = { rows: [row('k6', 16, 990), row('wrk', 16, 1000)] } as LoadBenchResult;
    expect(goalsSection({ load }).rows[3]!.slice(1, 4)).toEqual(['-', '≥ 0.8× each', '-']);
  });
});
