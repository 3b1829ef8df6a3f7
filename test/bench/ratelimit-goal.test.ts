// The rate-limit bench's goal rule (issue 21: within 2 %, no recommendation above the true rate,
// the proof holding; issue 35: a recommendation of at least 75 % of the true rate, a horizon
// covering two of the true longest window, the stage within its time budget), its row filter and the leak guard on each row's kept evidence, on rows and
// files written out: no limiter is started.

import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goalCell, goalMisses, goalSummary, rowSlug, selectRows, type Row } from '../../bench/ratelimit-goal.js';
import { ROWS } from '../../bench/ratelimit.js';
import { leakIn, staleBuild } from '../../bench/ratelimit-stage.js';

const row = (over: Partial<Row>): Row => ({
  group: 'go',
  limiter: 'bucket: golang.org/x/time/rate',
  setting: 'NewLimiter(50, 10)',
  true_rps: 50,
  estimated_rps: 49.9,
  rel_error_pct: 0.2,
  identified: 'token bucket 49.9 req/s, burst 9',
  requests_sent: 366,
  refused_pct: 6.3,
  seconds: 7.5,
  cap_s: 60,
  stage_s: 30,
  recommended_rps: 39,
  proof_429_pct: 0,
  proof: 'holds (round 1)',
  window_s: null,
  refill_s: 0.2,
  horizon_s: 120,
  covers_window_s: 60,
  ...over,
});

describe('the goal of a row', () => {
  it.each([
    ['within 2 %, below the truth, proof holding', {}, []],
    ['exactly 2 % off', { rel_error_pct: 2 }, []],
    ['recommended exactly the true rate', { recommended_rps: 50 }, []],
    ['held in a later round', { proof: 'holds (round 3)' }, []],
    ['2.01 % off', { rel_error_pct: 2.01 }, ['error 2.01 % > 2 %']],
    ['not identified', { estimated_rps: null, rel_error_pct: null }, ['not identified']],
    ['recommended above the true rate', { recommended_rps: 50.5 }, ['recommended 50.5 > true 50 r/s']],
    ['no recommendation', { recommended_rps: null }, ['no recommendation']],
    ['the proof failed', { proof: 'fails (round 3)' }, ['proof fails (round 3)']],
    ['no proof ran', { proof: 'not run', proof_429_pct: null }, ['proof not run']],
    ['recommended exactly 75 % of the true rate', { recommended_rps: 37.5 }, []],
    ['recommended under 75 % of the true rate', { recommended_rps: 37.4 }, ['recommended 37.4 < 75 % of true 50 r/s']],
    ['a horizon covering the window exactly', { window_s: 60, refill_s: null }, []],
    [
      'a horizon short of two windows',
      { window_s: 60, refill_s: null, horizon_s: 100, covers_window_s: 50 },
      ['horizon 100 s covers 50 s < 60 s window'],
    ],
    // The probe may never have seen the longest window: the truth's, not the estimate's, decides.
    [
      'a horizon short of two refills of a bucket without a window',
      { refill_s: 70, stage_s: 100 },
      ['horizon 120 s covers 60 s < 70 s refill'],
    ],
    [
      'a proof with no horizon in its report',
      { horizon_s: null, covers_window_s: null },
      ['no proof horizon reported'],
    ],
    [
      'no proof, so no horizon',
      { proof: 'not run', horizon_s: null, covers_window_s: null, stage_s: 10 },
      ['proof not run'],
    ],
    ['a stage exactly at its budget (2.5 × 0.2 s + 120 s + 15 s)', { stage_s: 135.5 }, []],
    [
      'a stage over its budget',
      { stage_s: 135.6 },
      ['stage 135.6 s > 135.5 s (2.5 × 0.2 s refill + 120 s horizon + 15 s)'],
    ],
    [
      "a window's budget: 2.5 windows",
      { window_s: 10, refill_s: null, stage_s: 160.1 },
      ['stage 160.1 s > 160 s (2.5 × 10 s window + 120 s horizon + 15 s)'],
    ],
    ['skipped (a tool missing)', { note: 'skipped: nginx not on PATH' }, ['skipped: nginx not on PATH']],
    [
      'every miss at once',
      { rel_error_pct: 4.76, recommended_rps: 51, proof: 'fails (round 1)', window_s: 80, stage_s: 400 },
      [
        'error 4.76 % > 2 %',
        'recommended 51 > true 50 r/s',
        'proof fails (round 1)',
        'horizon 120 s covers 60 s < 80 s window',
        'stage 400 s > 335 s (2.5 × 80 s window + 120 s horizon + 15 s)',
      ],
    ],
  ] as Array<[string, Partial<Row>, string[]]>)('%s', (_, over, misses) => {
    expect(goalMisses(row(over))).toEqual(misses);
    expect(goalCell(row(over))).toBe(misses.length === 0 ? 'met' : `missed: ${misses.join('; ')}`);
  });

  it('the summary counts the rows meeting it, the not identified ones among those that do not', () => {
    const rows = [
      row({}),
      row({ rel_error_pct: null }),
      row({ proof: 'not run' }),
      row({ recommended_rps: 45 }),
      row({ stage_s: 200 }),
    ];
    expect(goalSummary(rows)).toBe(
      '2 of 5 rows within 2 %, recommendation 75–100 % of true, proof holding over ≥ 2 longest windows, stage ≤ 2.5 windows + horizon + 15 s',
    );
  });
});

describe('the row filter', () => {
  const names = (words: string[]) => selectRows(ROWS, words).map((r) => `${r.limiter} ${r.setting}`);

  it('no word: every row', () => {
    expect(selectRows(ROWS, [])).toHaveLength(ROWS.length);
  });

  it.each([
    // A group: its rows, whatever their limiter is called.
    ['go', 17, /httprate|x\/time\/rate|Envoy|Traefik/],
    ['minute', 3, /600/],
    ['stacked', 8, /^emulator: .* and /],
    ['real-stack', 4, /^(nginx limit_req|HAProxy), two .* and /],
    ['network', 9, /toxiproxy/],
    // Any word of a limiter or setting, case-insensitive, in any group.
    ['BATCH', 5, /^batch bucket/],
    ['60000ms', 1, /^sliding: HAProxy, admitted counted http_req_rate\(60000ms\) 600$/],
    ['rate-limiter-flexible', 4, /RateLimiterMemory/],
  ] as Array<[string, number, RegExp]>)('%s: %i rows', (word, count, each) => {
    const picked = names([word]);
    expect(picked).toHaveLength(count);
    for (const name of picked) expect(name).toMatch(each);
  });

  it('several words: the rows naming all of them', () => {
    expect(names(['go', 'batch', 'max 100'])).toEqual(['batch bucket (Envoy token_bucket) 50 every 1 s, max 100']);
    expect(names(['nginx', 'no such row'])).toEqual([]);
  });

  it("every row states its true limiter's longest window, or its refill time without one", () => {
    const span = (words: string[]) => selectRows(ROWS, words).map((r) => [r.window_s, r.refill_s]);
    for (const r of ROWS) expect(r.window_s ?? r.refill_s, rowSlug(r)).toBeGreaterThan(0);
    // From the model where the row has one: the set's longest window, its buckets' longest refill.
    expect(span(['stacked', 'clock-aligned'])).toEqual(Array(3).fill([60, null]));
    expect(span(['stacked', 'a bucket of 30'])).toEqual([[null, 60]]);
    expect(span(['advertised'])).toEqual([[60, null]]);
    // Two nginx zones: the 600r/m zone's burst + 1 at 10 r/s; HAProxy's longer table, 60 s.
    expect(span(['real-stack', 'nginx'])).toEqual(Array(2).fill([null, 60.1]));
    expect(span(['real-stack', 'HAProxy'])).toEqual(Array(2).fill([60, null]));
    // Stated for the real limiters: HAProxy's period, a bucket's burst / rate, a batch bucket's whole fills.
    expect(span(['haproxy', '10000ms', 'every'])).toEqual(Array(3).fill([10, null]));
    expect(span(['NewLimiter(20, 40)'])).toEqual([[null, 2]]);
    expect(span(['batch', 'every 0.5 s, max 80'])).toEqual([[null, 2]]);
    expect(span(['queue', 'rate=10r/s'])).toEqual([[null, 0.5]]);
  });

  it('every row has its own evidence folder', () => {
    const slugs = ROWS.map(rowSlug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});

describe("a row's evidence", () => {
  it.each([
    ['nothing secret', 'report.json', '{"rate_limit":{"sustained_rps":50}}', undefined],
    ['the client secret in the report', 'report.json', '{"echo":"s3cr3t-value"}', 'report.json'],
    ['a whole token in the terminal tail', 'stage.log', 'Bearer tok-ABCDEFGHIJ tail', 'stage.log'],
    ['a token fingerprint only', 'stage.log', 'token …GHIJ', undefined],
  ] as Array<[string, string, string, string | undefined]>)('%s', async (_, file, text, leaked) => {
    const dir = await mkdtemp(join(tmpdir(), 'ces-test-evidence-'));
    try {
      await writeFile(join(dir, file), text);
      expect(await leakIn(dir, ['s3cr3t-value', 'tok-ABCDEFGHIJ'])).toBe(leaked);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the bench runs the build, so it refuses one older than the sources', () => {
  it('names the first source changed since dist/ was built, and a build that is missing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ces-stale-build-'));
    try {
      for (const dir of ['dist/scenarios', 'src/ratelimit', 'scenarios', 'checks'])
        await mkdir(join(root, dir), { recursive: true });
      expect(staleBuild(root)).toBe('the build is missing dist/cli.js');
      const at = (file: string, s: number) => utimes(join(root, file), s, s);
      for (const f of [
        'src/ratelimit/prove.ts',
        'scenarios/rate-limit.ts',
        'dist/cli.js',
        'dist/scenarios/rate-limit.js',
      ])
        await writeFile(join(root, f), '');
      await at('src/ratelimit/prove.ts', 1000);
      await at('scenarios/rate-limit.ts', 1000);
      await at('dist/cli.js', 2000);
      await at('dist/scenarios/rate-limit.js', 2000);
      expect(staleBuild(root)).toBeNull();
      await at('scenarios/rate-limit.ts', 3000);
      expect(staleBuild(root)).toBe(`the build is older than ${join('scenarios', 'rate-limit.ts')}`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
