// Reading what a service announces of its rate limit, from header samples as real services and
// gateways send them (each case names where the sample comes from), and never a crash on garbage.

import { describe, expect, it } from 'vitest';
import {
  advertisedRps,
  advertisementHeaders,
  readAdvertisement,
  readAdvertisements,
  resetFromNow,
  tighterAdvertisement,
  type Advertisement,
} from '../../src/spec/ratelimit-fields.js';

const NOW_MS = 1_800_000_000_000;

const cases: Array<{ name: string; headers: Record<string, string>; want: Advertisement | undefined }> = [
  {
    name: 'GitHub REST API: X-RateLimit-* with the reset in epoch seconds',
    headers: {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(NOW_MS / 1000 + 3540),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    },
    want: { limit: 5000, windowS: null, remaining: 4999, resetS: 3540, resetAheadS: 3540, source: 'X-RateLimit-Limit' },
  },
  {
    name: 'Envoy ratelimit filter (draft 03): the quota, then its policy',
    headers: { 'x-ratelimit-limit': '10, 10;w=60', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '48' },
    want: { limit: 10, windowS: 60, remaining: 9, resetS: 48, resetAheadS: 48, source: 'X-RateLimit-Limit' },
  },
  {
    name: 'express-rate-limit draft-6: RateLimit-Policy 100;w=900 beside the trio',
    headers: {
      'ratelimit-policy': '100;w=900',
      'ratelimit-limit': '100',
      'ratelimit-remaining': '99',
      'ratelimit-reset': '899',
    },
    want: { limit: 100, windowS: 900, remaining: 99, resetS: 899, resetAheadS: 899, source: 'RateLimit-Policy' },
  },
  {
    name: 'express-rate-limit draft-7: the RateLimit dictionary',
    headers: { ratelimit: 'limit=100, remaining=99, reset=899', 'ratelimit-policy': '100;w=900' },
    want: { limit: 100, windowS: 900, remaining: 99, resetS: 899, resetAheadS: 899, source: 'RateLimit-Policy' },
  },
  {
    name: 'express-rate-limit draft-8: named policy with a partition key',
    headers: {
      'ratelimit-policy': '"100-in-15min"; q=100; w=900; pk=:ZDBlNGJhMWY5ZTQ1:',
      ratelimit: '"100-in-15min"; r=99; t=899',
    },
    want: { limit: 100, windowS: 900, remaining: 99, resetS: 899, resetAheadS: 899, source: 'RateLimit-Policy' },
  },
  {
    name: 'Cloudflare: structured fields, trailing semicolon',
    headers: { ratelimit: '"default";r=50;t=30', 'ratelimit-policy': '"default";q=100;w=60;' },
    want: { limit: 100, windowS: 60, remaining: 50, resetS: 30, resetAheadS: 30, source: 'RateLimit-Policy' },
  },
  {
    name: 'two policies: the lowest rate binds a steady client (1000 per hour, not 20 per 10 s)',
    headers: {
      'ratelimit-policy': '"burst";q=1000;w=3600, "day";q=20;w=10',
      ratelimit: '"day";r=3;t=7, "burst";r=900;t=100',
    },
    want: { limit: 1000, windowS: 3600, remaining: 900, resetS: 100, resetAheadS: 100, source: 'RateLimit-Policy' },
  },
  {
    name: 'Kong rate-limiting plugin: per-unit fields and the trio without a window',
    headers: {
      'x-ratelimit-limit-minute': '60',
      'x-ratelimit-remaining-minute': '59',
      'ratelimit-limit': '60',
      'ratelimit-remaining': '59',
      'ratelimit-reset': '47',
    },
    want: { limit: 60, windowS: 60, remaining: 59, resetS: 47, resetAheadS: 47, source: 'RateLimit-Limit' },
  },
  {
    name: 'Kong, per-unit fields alone',
    headers: { 'x-ratelimit-limit-hour': '1000', 'x-ratelimit-remaining-hour': '998' },
    want: {
      limit: 1000,
      windowS: 3600,
      remaining: 998,
      resetS: null,
      resetAheadS: null,
      source: 'X-RateLimit-Limit-Hour',
    },
  },
  {
    name: 'Twitter/X API: x-rate-limit-*',
    headers: {
      'x-rate-limit-limit': '900',
      'x-rate-limit-remaining': '899',
      'x-rate-limit-reset': String(NOW_MS / 1000 + 900),
    },
    want: { limit: 900, windowS: null, remaining: 899, resetS: 900, resetAheadS: 900, source: 'X-Rate-Limit-Limit' },
  },
  {
    name: 'Discord: epoch seconds with a fraction',
    headers: {
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(NOW_MS / 1000 + 1.5),
      'x-ratelimit-reset-after': '1.5',
    },
    want: { limit: 5, windowS: null, remaining: 0, resetS: 1.5, resetAheadS: 1.5, source: 'X-RateLimit-Limit' },
  },
  {
    name: 'nothing about a limit',
    headers: { 'content-type': 'application/json', 'retry-after': '3' },
    want: undefined,
  },
  { name: 'garbage policy', headers: { 'ratelimit-policy': 'banana;w=soon', ratelimit: 'r=;t=' }, want: undefined },
  { name: 'negative limit', headers: { 'x-ratelimit-limit': '-5', 'x-ratelimit-remaining': '3' }, want: undefined },
  { name: 'zero limit', headers: { 'ratelimit-limit': '0' }, want: undefined },
  {
    name: 'a garbled remaining and reset are left out, the limit kept',
    headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': 'lots', 'x-ratelimit-reset': 'Thu, 26 Nov 2026' },
    want: { limit: 100, windowS: null, remaining: null, resetS: null, resetAheadS: null, source: 'X-RateLimit-Limit' },
  },
  { name: 'an absurdly long field', headers: { 'ratelimit-policy': `${'1;w=1,'.repeat(500)}` }, want: undefined },
];

describe('readAdvertisement', () => {
  it.each(cases)('$name', ({ headers, want }) => {
    expect(readAdvertisement(headers, NOW_MS)).toEqual(want);
  });

  it('never throws on random bytes', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = '0123456789;=,"w q r t limit remaining reset :-.\u0000é';
    for (let i = 0; i < 2000; i++) {
      const value = Array.from(
        { length: Math.floor(rnd() * 40) },
        () => alphabet[Math.floor(rnd() * alphabet.length)],
      ).join('');
      const name = [
        'ratelimit',
        'ratelimit-policy',
        'x-ratelimit-limit',
        'ratelimit-reset',
        'x-ratelimit-limit-minute',
      ][i % 5]!;
      expect(() =>
        readAdvertisement({ [name]: value, 'x-ratelimit-limit': i % 3 === 0 ? value : '5' }, NOW_MS),
      ).not.toThrow();
    }
  });
});

describe('every announced limit is a hypothesis (issue 35: stacked limits as public APIs publish them)', () => {
  const ietf = {
    'ratelimit-policy': '"second";q=30;w=1, "minute";q=600;w=60',
    ratelimit: '"second";r=29;t=1, "minute";r=599;t=60',
  };
  const kong = {
    'x-ratelimit-limit-second': '30',
    'x-ratelimit-remaining-second': '29',
    'x-ratelimit-limit-minute': '600',
    'x-ratelimit-remaining-minute': '599',
    'ratelimit-limit': '30',
    'ratelimit-remaining': '29',
    'ratelimit-reset': '1',
  };
  const limits = (ads: Advertisement[]) => ads.map((a) => [a.limit, a.windowS, a.remaining, a.source]);

  it('reads every policy of an IETF list and every Kong unit', () => {
    expect(limits(readAdvertisements(ietf, NOW_MS))).toEqual([
      [30, 1, 29, 'RateLimit-Policy'],
      [600, 60, 599, 'RateLimit-Policy'],
    ]);
    // Kong's RateLimit-Limit (no window) is the second's quota again: said once, with its window.
    const monthly = { ...kong, 'x-ratelimit-limit-month': '100000', 'x-ratelimit-remaining-month': '99999' };
    expect(limits(readAdvertisements(monthly, NOW_MS))).toEqual([
      [30, 1, 29, 'X-RateLimit-Limit-Second'],
      [600, 60, 599, 'X-RateLimit-Limit-Minute'],
      [100000, 2_592_000, 99999, 'X-RateLimit-Limit-Month'],
    ]);
    // 100000 a month is 0.04 req/s: the lowest rate of the three.
    expect(readAdvertisement(monthly, NOW_MS)).toMatchObject({ limit: 100000, windowS: 2_592_000 });
  });

  it.each([
    ['an IETF list', ietf],
    ["Kong's fields", kong],
  ])('in %s, a steady client is bound by the lowest rate, a burst by the smallest quota', (_, headers) => {
    expect(readAdvertisement(headers, NOW_MS)).toMatchObject({ limit: 600, windowS: 60, remaining: 599 });
    expect(readAdvertisement(headers, NOW_MS, 'burst')).toMatchObject({ limit: 30, windowS: 1, remaining: 29 });
  });

  // Kong's RateLimit-Limit names the quota nearest its end: once the minute has fewer left than the
  // second holds, the minute's. Read without its window it was "430 per window … DISAGREES" with the
  // second's bucket the probe measured, beside the minute announced per unit (a real run, 1 Dec).
  it("Kong's trio once the minute is nearest its end: the minute's window, from its unit's field", () => {
    const late = {
      ...kong,
      'x-ratelimit-limit-minute': '430',
      'x-ratelimit-remaining-minute': '17',
      'ratelimit-limit': '430',
      'ratelimit-remaining': '17',
      'ratelimit-reset': '12',
    };
    expect(readAdvertisement(late, NOW_MS, 'burst')).toMatchObject({ limit: 430, windowS: 60, remaining: 17 });
  });
});

describe('resetFromNow tells delta seconds from epoch seconds and ms by magnitude', () => {
  it.each([
    ['30', 30],
    ['0', 0],
    [String(NOW_MS / 1000 + 42), 42],
    [String(NOW_MS + 4200), 4.2],
    [String(NOW_MS / 1000 - 10), 0],
    ['soon', null],
    ['-3', null],
  ])('%s → %s', (value, want) => {
    expect(resetFromNow(value, NOW_MS)).toBe(want);
  });
});

// An epoch reset already past still names its window (go-chi/httprate truncates the window's end
// to its second): the ticks read it unclamped, a client's wait never below 0, both off one field.
describe('the reset both ways: resetAheadS unclamped, resetS the wait', () => {
  it.each([
    [{ 'x-ratelimit-limit': '50', 'x-ratelimit-reset': String(NOW_MS / 1000 - 0.5) }, -0.5],
    [{ 'x-ratelimit-limit': '50', 'x-ratelimit-reset': String(NOW_MS / 1000 + 1) }, 1],
    [{ 'x-rate-limit-limit': '50', 'x-rate-limit-reset': String(NOW_MS - 300) }, -0.3],
    // The IETF trio wins, and both readings come from its field, not the X- one.
    [
      {
        'ratelimit-limit': '50',
        'ratelimit-reset': '7',
        'x-ratelimit-limit': '50',
        'x-ratelimit-reset': String(NOW_MS / 1000),
      },
      7,
    ],
    [{ 'x-ratelimit-limit': '50' }, null],
  ])('%o → %s', (headers, want) => {
    const ad = readAdvertisement(headers, NOW_MS)!;
    if (want === null) expect([ad.resetAheadS, ad.resetS]).toEqual([null, null]);
    else {
      expect(ad.resetAheadS).toBeCloseTo(want, 6);
      expect(ad.resetS).toBeCloseTo(Math.max(0, want), 6);
    }
  });
});

it('what the emulator announces reads back as the same quota', () => {
  const headers = advertisementHeaders({ limit: 60, windowS: 60, remaining: 12, resetS: 33.2 });
  expect(readAdvertisement(headers, NOW_MS)).toEqual({
    limit: 60,
    windowS: 60,
    remaining: 12,
    resetS: 34,
    resetAheadS: 34,
    source: 'RateLimit-Policy',
  });
});

describe('tighterAdvertisement: of the announcements seen, the one a paced client meets first', () => {
  const ad = (limit: number, windowS: number | null): Advertisement => ({
    limit,
    windowS,
    remaining: null,
    resetS: null,
    resetAheadS: null,
    source: 'RateLimit-Policy',
  });
  it.each([
    { what: 'the lower rate, whatever the counts', a: ad(100, 10), b: ad(20, 1), want: ad(100, 10) },
    { what: 'the lower rate second', a: ad(20, 1), b: ad(100, 10), want: ad(100, 10) },
    { what: 'a rate over a count with no window', a: ad(5, null), b: ad(50, 1), want: ad(50, 1) },
    { what: 'the first when neither has a window', a: ad(5, null), b: ad(3, null), want: ad(5, null) },
    { what: 'the first of two equal rates', a: ad(10, 1), b: ad(20, 2), want: ad(10, 1) },
  ])('$what', ({ a, b, want }) => {
    expect(tighterAdvertisement(a, b)).toEqual(want);
  });

  it('a first announcement stands alone; a rate is limit ÷ window, none without a window', () => {
    expect(tighterAdvertisement(undefined, ad(5, null))).toEqual(ad(5, null));
    expect(advertisedRps(ad(10, 2))).toBe(5);
    expect(advertisedRps(ad(10, null))).toBeNull();
  });
});
