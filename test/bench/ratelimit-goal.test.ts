// The rate-limit bench's goal rule (issue 21: within 2 %, no recommendation above the true rate,
// the proof holding), its row filter and the leak guard on each row's kept evidence, on rows and
// files written out: no limiter is started.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goalCell, goalMisses, goalSummary, rowSlug, selectRows, type Row } from '../../bench/ratelimit-goal.js';
import { ROWS } from '../../bench/ratelimit.js';
import { leakIn } from '../../bench/ratelimit-stage.js';

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
    ['skipped (a tool missing)', { note: 'skipped: nginx not on PATH' }, ['skipped: nginx not on PATH']],
    [
      'every miss at once',
      { rel_error_pct: 4.76, recommended_rps: 51, proof: 'fails (round 1)' },
      ['error 4.76 % > 2 %', 'recommended 51 > true 50 r/s', 'proof fails (round 1)'],
    ],
  ] as Array<[string, Partial<Row>, string[]]>)('%s', (_, over, misses) => {
    expect(goalMisses(row(over))).toEqual(misses);
    expect(goalCell(row(over))).toBe(misses.length === 0 ? 'met' : `missed: ${misses.join('; ')}`);
  });

  it('the summary counts the rows meeting it, the not identified ones among those that do not', () => {
    const rows = [row({}), row({ rel_error_pct: null }), row({ proof: 'not run' }), row({ recommended_rps: 45 })];
    expect(goalSummary(rows)).toBe('2 of 4 rows within 2 %, recommendation ≤ true, proof holding');
  });
});

describe('the row filter', () => {
  const names = (words: string[]) => selectRows(ROWS, words).map((r) => `${r.limiter} ${r.setting}`);

  it('no word: every row', () => {
    expect(selectRows(ROWS, [])).toHaveLength(ROWS.length);
  });

  it.each([
    // A group: its rows, whatever their limiter is called.
    ['go', 14, /httprate|x\/time\/rate|Envoy/],
    ['minute', 3, /600/],
    ['stacked', 4, /^emulator: .* and /],
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
