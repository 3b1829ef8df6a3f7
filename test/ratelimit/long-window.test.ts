// Windows of 10 s and a minute (the commonest public API limits: 60/min, 600/min), sized by the
// whole probe (discover) on a virtual clock, as the emulator runs them: with the service announcing
// its quota in RateLimit headers (tested at its announced edges, probe/advertised.ts), with only a
// Retry-After on refusals, and announcing more than it enforces. Each must be sized within 2 %, in
// about two periods and a half, with requests that grow with the limit (three windows' worth and a
// few dozen pings), or said to be beyond the budget: never a guess.

import { describe, expect, it } from 'vitest';
import { describeLimiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { overstatedQuota } from '../../src/emulator/profiles/ratelimit-headers.js';
import {
  advertising,
  discoverVirtual,
  fromModel,
  haproxyRate,
  httprateFront,
  openedEarlier,
  type Limiter,
  type VirtualEndpoint,
} from './virtual-limit.js';

const fixed = (limit: number, windowS: number): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s: windowS,
  phase_s: 0,
  counts_refused: false,
});

type Says = 'ratelimit-headers' | 'retry-after' | 'overstated 100/min' | 'nothing';

function endpoint(model: LimiterModel, says: Says): VirtualEndpoint {
  if (says === 'retry-after') return { limiter: () => fromModel(model), status: 429, announces: 'retry-after' };
  if (says === 'nothing') return { limiter: () => fromModel(model), status: 429 };
  return {
    limiter: () => advertising(model, says === 'ratelimit-headers' ? undefined : overstatedQuota(100, 60)),
    status: 429,
  };
}

const probeOf = (model: LimiterModel, says: Says, maxDurationS: number, progress?: (line: string) => void) =>
  discoverVirtual(endpoint(model, says), { maxDurationS, ...(progress ? { progress } : {}) });

/** Sized within 2 %, in 2.5 windows, with the limit three times over and at most `pings` more requests. */
function expectSized(e: Estimate, limit: number, windowS: number, pings: number): void {
  const got = e.limiter;
  expect(got?.kind, e.notes.join('\n')).toBe('fixed-window');
  if (got?.kind !== 'fixed-window') return;
  expect(got.limit).toBe(limit);
  expect(Math.abs(got.window_s - windowS) / windowS).toBeLessThanOrEqual(0.02);
  expect(e.duration_s).toBeLessThanOrEqual(2.5 * windowS);
  expect(e.requests_sent).toBeLessThanOrEqual(3 * limit + pings);
  expect(e.partial).toBe(false);
}

const sized = [
  { limit: 300, windowS: 10, says: 'ratelimit-headers' },
  { limit: 300, windowS: 10, says: 'retry-after' },
  { limit: 60, windowS: 60, says: 'ratelimit-headers' },
  { limit: 60, windowS: 60, says: 'retry-after' },
  { limit: 600, windowS: 60, says: 'ratelimit-headers' },
  { limit: 600, windowS: 60, says: 'retry-after' },
] as const;

describe('a fixed window of 10 s or a minute is sized within 2 % in two periods and a half', () => {
  it.each(sized)('$limit per $windowS s, announced by $says', async ({ limit, windowS, says }) => {
    const e = await probeOf(fixed(limit, windowS), says, 2.5 * windowS);
    // Three windows' worth (the drain, the window after the first edge, the one after the second) and pings.
    expectSized(e, limit, windowS, 100);
    if (says === 'ratelimit-headers')
      expect(e.advertised).toMatchObject({ limit, window_s: windowS, source_header: 'RateLimit-Policy', agrees: true });
    else expect(e.advertised).toBeUndefined();
    console.log(
      `${limit}/${windowS} s (${says}): ${describeLimiter(e.limiter!)} in ${e.duration_s} s, ${e.requests_sent} requests`,
    );
  });
});

// Nothing announced (HAProxy, many gateways): the first edge found by pings at most 2 % of the wait
// apart, the second a shortest window later (probe/silent-window.ts). Two windows at most, the
// limit three times over and a couple of hundred pings, whatever max_requests allows.
const silent = [
  { limit: 300, windowS: 10 },
  { limit: 60, windowS: 60 },
  { limit: 600, windowS: 60 },
] as const;

describe('a fixed window of 10 s or a minute that announces nothing is sized within 2 % in two periods and a half', () => {
  it.each(silent)('$limit per $windowS s, no RateLimit field, no Retry-After', async ({ limit, windowS }) => {
    const said: string[] = [];
    const e = await probeOf(fixed(limit, windowS), 'nothing', 2.5 * windowS, (line) => said.push(line));
    expectSized(e, limit, windowS, 250);
    // Up front: once the wait is long, what it will cost; once the first edge came, when the next one can.
    expect(said.some((l) => /a long window; its first edge, then one window: twice the window at most/.test(l))).toBe(
      true,
    );
    expect(said.some((l) => /a window of at least [\d.]+ s; its next edge comes [\d.]+ s from now/.test(l))).toBe(true);
    console.log(
      `${limit}/${windowS} s (silent): ${describeLimiter(e.limiter!)} in ${e.duration_s} s, ${e.requests_sent} requests`,
    );
  });
});

/**
 * A fixed window of `limit` per `windowS` s (edges at whole multiples), each of whose windows from
 * the `from`th on lets `short` fewer through: what a bucket in front does to the clumps after
 * its edges (the real emulator's 100 per second before 200 per 10 s: 200 in the drain's window,
 * with the set-up's two, then 199 and 198).
 */
function cutShort(limit: number, windowS: number, from: number, short: number): Limiter {
  let [current, used] = [Number.NaN, 0];
  return (now) => {
    const k = Math.floor(now / (windowS * 1000));
    if (k !== current) [current, used] = [k, 0];
    if (used >= limit - (k >= from ? short : 0)) return (k + 1) * windowS * 1000 - now;
    used++;
    return undefined;
  };
}

describe('a silent 10 s window whose clump after its second edge comes a request short', () => {
  // Its first edge 10 s in, 9 s after the drain shut: a long window (silent-window.ts). Whole
  // again "only 198 of 199" read it as a window that slides, not sized, and `ratelimit` then
  // searched with k6 for 337 s (3 Dec 2026); a log lets next to nothing through there.
  it('sized as a fixed window, the count the first edge showed', async () => {
    const e = await discoverVirtual({ limiter: () => cutShort(200, 10, 2, 2), status: 429 }, { maxDurationS: 60 });
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'fixed-window', limit: 200 });
    expect(Math.abs(e.sustained_rps! / 20 - 1), e.notes.join('\n')).toBeLessThanOrEqual(0.02);
  });
});

/**
 * `limit` at once, then shut until `banMs` (a gateway's block after its limit was met), then
 * `limit` per `windowS` s from there: the first shut longer than the windows after it.
 */
function bannedThenWindows(limit: number, banMs: number, windowS: number): Limiter {
  let [current, used] = [-1, 0];
  return (now) => {
    const k = now < banMs ? -1 : Math.floor((now - banMs) / (windowS * 1000));
    if (k !== current) [current, used] = [k, 0];
    if (used >= limit) return k < 0 ? banMs - now : banMs + (k + 1) * windowS * 1000 - now;
    used++;
    return undefined;
  };
}

/**
 * A fixed window of `limit` per `windowS` s, its edges `phaseMs` past each multiple, behind a
 * front that refuses a request sent within `gapMs` of the last one let through once `cut` have
 * passed in the window: a bucket in front, which cuts a clump at max_rps a few short and lets the
 * rest in when asked more slowly. Every refusal says the window's edge, as the emulator's stack does.
 */
function frontCut(limit: number, windowS: number, phaseMs: number, cut: number, gapMs: number): Limiter {
  let [current, used, lastMs] = [Number.NaN, 0, -Infinity];
  return (now) => {
    const k = Math.floor((now - phaseMs) / (windowS * 1000));
    if (k !== current) [current, used] = [k, 0];
    const toEdgeMs = (k + 1) * windowS * 1000 + phaseMs - now;
    if (used >= limit || (used >= cut && now - lastMs < gapMs)) return toEdgeMs;
    [used, lastMs] = [used + 1, now];
    return undefined;
  };
}

describe('a 10 s window behind a front that cuts each clump two short, Retry-After its edge', () => {
  // Its edge 6-10 s after the drain: a long window (silent-window.ts). The clump at the first edge
  // was cut at 198 and the room left was taken for the second edge, its clump refused at once: a
  // length between 1.5 and 5.2 s, not identified (before the bracket was checked, a window read
  // far short). The room is topped up first now (leftInWindow).
  // Cut one short (199), the first edge, at 6.25 s, was met when the announced reset was tested:
  // the limit then shut again and came back at 16.25 s. Timed from the drain, that was "shut 15.3 s,
  // a window of at least 16 s", and the second edge was looked for 5 s past it (sinceLastClump).
  it.each([
    { phaseS: 6.25, cut: 198 },
    { phaseS: 7.25, cut: 198 },
    { phaseS: 8.25, cut: 198 },
    { phaseS: 9.25, cut: 198 },
    { phaseS: 6.25, cut: 199 },
  ])('its edges $phaseS s past each multiple, cut at $cut: sized within 2 %', async ({ phaseS, cut }) => {
    const e = await discoverVirtual(
      { limiter: () => frontCut(200, 10, phaseS * 1000, cut, 8), status: 429, announces: 'retry-after' },
      { maxDurationS: 150 },
    );
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'fixed-window', limit: 200 });
    expect(Math.abs(e.sustained_rps! / 20 - 1), e.notes.join('\n')).toBeLessThanOrEqual(0.02);
  });
});

describe('a silent shut longer than the window after it', () => {
  // Shut 16 s, then windows of 10 s: the first edge says a window of at least 16 s, so the second
  // was looked for from 31 s, and the first ping there passed, 5 s past the edge. Sized by the
  // middle of that 2.6-to-15.7 s bracket, it read 200 per 9.16 s, 9 % fast (the real emulator's
  // 10 s window behind a bucket, open at 6 s while its Retry-After was tested: 199 per 9.13 s, and
  // proven). Too loose a bracket sizes nothing.
  it('is not sized by edges the pings did not look for', async () => {
    const e = await discoverVirtual(
      { limiter: () => bannedThenWindows(200, 16_000, 10), status: 429 },
      { maxDurationS: 60 },
    );
    const context = JSON.stringify({ limiter: e.limiter, evidence: e.limiter_evidence });
    if (e.limiter !== null) expect(Math.abs(e.sustained_rps! / 20 - 1), context).toBeLessThanOrEqual(0.02);
    else expect(e.limiter_evidence.join('\n')).toMatch(/too wide to size it/);
  });
});

describe('a silent long window that is not a fixed window is not taken for one', () => {
  it.each([
    {
      name: 'a sliding log of 60 per 60 s',
      model: { kind: 'sliding-window', limit: 60, period_s: 60, counts_refused: false },
    },
    { name: 'a bucket of 1 per 8 s, burst 10', model: { kind: 'bucket', rate_rps: 0.125, burst: 10 } },
  ] as const)('$name', async ({ model }) => {
    const e = await probeOf(model, 'nothing', 150);
    expect(e.limiter?.kind, e.notes.join('\n')).not.toBe('fixed-window');
    // Let back one at a time after the long wait: the usual phases go on and time the bucket. Its
    // burst takes 80 s to refill, so no round from idle fits in 150 s: the drain's 8 (of 10, the
    // set-up requests took two) is no burst. Its rate stands; a bucket is claimed only with its burst right.
    if (model.kind === 'bucket') {
      expect(e.sustained_rps, e.notes.join('\n')).not.toBeNull();
      if (e.limiter === null) expect(e.notes.join('\n')).toMatch(/burst not measured: no round waited/);
      else expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'bucket', burst: model.burst });
    }
    // Its first edge's own slot alone free a period after that request: a log of that period.
    if (model.kind === 'sliding-window') {
      expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'sliding-window', limit: 60 });
      if (e.limiter?.kind === 'sliding-window') expect(Math.abs(e.limiter.period_s / 60 - 1)).toBeLessThanOrEqual(0.02);
      expect(e.limiter_evidence.join('\n')).toMatch(/after the request that passed at that edge/);
    }
  });

  // httprate's counter, its next edge 7.5 s after the drain shut: back in part at once (it weighs the
  // drained window), more than one at a time and fewer than the drain. Its clump spent that weight,
  // which misled every later phase (the probe read a sliding log 37 % fast): its ramp is timed
  // inside the window after the edge instead (counter-ramp.ts), before the next edge.
  it('a sliding-window counter of 100 per 10 s whose edge comes late: sized by its ramp within the next window', async () => {
    const model = { kind: 'sliding-counter', limit: 100, window_s: 10, phase_s: 8, counts_refused: false } as const;
    const e = await probeOf(model, 'nothing', 150);
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'sliding-counter', limit: 100 });
    if (e.limiter?.kind === 'sliding-counter') expect(Math.abs(e.limiter.window_s / 10 - 1)).toBeLessThanOrEqual(0.02);
    expect(e.limiter_evidence.join('\n')).toMatch(/on a line from that edge, through pings refused in between/);
    expect(e.duration_s).toBeLessThan(20);
    expect(e.requests_sent).toBeLessThan(300);
  });
});

describe("HAProxy's counter with a 10 s period, silent: it weighs its last period as a counter does", () => {
  // Its period opens at the client's first request, so its first edge comes a period after the
  // drain began: the ramp reads it as a counter whose edge fell there, at its true rate, and says
  // so. Counting refused requests, the ramp's pings keep it shut; then every request counts the
  // same, so after a quiet spell one more clump times it (probe/quiet-ramp.ts): before, "not identified".
  it.each([
    { countsRefused: false, says: /a period opened by the client's first request, as HAProxy's stick table weighs it/ },
    { countsRefused: true, says: /pinged after its first edge it stayed shut, so refused requests count/ },
  ])('counting refused requests: $countsRefused', async ({ countsRefused, says }) => {
    const e = await discoverVirtual(
      { limiter: () => haproxyRate(300, 10_000, countsRefused), status: 429 },
      { maxDurationS: 60 },
    );
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'sliding-counter', limit: 300 });
    if (e.limiter?.kind === 'sliding-counter') expect(e.limiter.counts_refused).toBe(countsRefused);
    expect(e.sustained_rps).toBeLessThanOrEqual(30 * 1.02);
    expect(e.sustained_rps).toBeGreaterThanOrEqual(30 * 0.98);
    expect(e.limiter_evidence.join('\n')).toMatch(says);
    // About two periods and a half at most.
    expect(e.duration_s).toBeLessThanOrEqual(25);
  });

  // Where the set-up requests opened its period before the drain (a busy machine starts the drain
  // late) and how far the limit is above the pings: each sized within 2 % and never more than 0.6 %
  // fast, or not identified with the reason. Measured 27 Nov 2026 (before: none sized); 30 Nov, 100
  // per 10 s at every lead and 200 at 1 and 2.5 s timed across the next edge (next-window-ramp.ts).
  it('counting refused requests, at four limits and four leads of its period over the drain', async () => {
    const counts = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (const limit of [100, 200, 300, 600])
      for (const leadMs of [0, 300, 1000, 2500]) {
        const e = await discoverVirtual(
          { limiter: () => openedEarlier(haproxyRate(limit, 10_000, true), leadMs), status: 429 },
          { maxDurationS: 60 },
        );
        const got = e.limiter;
        const sized = got?.kind === 'sliding-counter' && got.limit === limit && Math.abs(got.window_s / 10 - 1) <= 0.02;
        counts[sized ? 'sized' : got === null ? 'not identified' : 'other']++;
        rows.push(`${limit} per 10 s, ${leadMs} ms lead: ${JSON.stringify(got)} ${e.sustained_rps} req/s`);
        if (e.sustained_rps !== null) expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual((1.006 * limit) / 10);
        if (got === null) expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not pinned down|not sized/);
      }
    expect(counts, rows.join('\n')).toEqual({ sized: 15, 'not identified': 1, other: 0 });
  });
});

describe('what the announcement says is set beside what was measured', () => {
  it('a gateway that announces 100/min in front of 60/min: measured 60 per 60 s, the disagreement reported', async () => {
    const e = await probeOf(fixed(60, 60), 'overstated 100/min', 150);
    expect(e.limiter).toMatchObject({ kind: 'fixed-window', limit: 60, window_s: 60 });
    expect(e.advertised).toMatchObject({ limit: 100, window_s: 60, agrees: false });
    expect(e.advertised?.note).toMatch(/overstates/);
    expect(e.notes.some((n) => /disagrees/.test(n))).toBe(true);
  });

  it('a short window the usual phases size is compared with the announcement after them', async () => {
    const e = await probeOf(fixed(50, 1), 'ratelimit-headers', 30);
    expect(e.limiter).toMatchObject({ kind: 'fixed-window', limit: 50, window_s: 1 });
    expect(e.advertised).toMatchObject({ limit: 50, window_s: 1, agrees: true });
  });

  it("a bucket that announces its burst as the quota (the emulator's default limit): compared, agreeing", async () => {
    const e = await probeOf({ kind: 'bucket', rate_rps: 50, burst: 50 }, 'ratelimit-headers', 30);
    expect(e.limiter?.kind).toBe('bucket');
    expect(e.advertised).toMatchObject({ limit: 50, agrees: true });
  });

  it('a sliding log that announces its quota is not taken for a fixed window', async () => {
    const e = await probeOf(
      { kind: 'sliding-window', limit: 60, period_s: 60, counts_refused: false },
      'ratelimit-headers',
      150,
    );
    expect(e.limiter?.kind).not.toBe('fixed-window');
    expect(e.advertised?.agrees).not.toBe(false);
  });
});

/** No limiter, and the note that says why: never a guess. */
function expectLongerThanBudget(e: Estimate, capS: number): void {
  expect(e.limiter).toBeNull();
  // Led by it, or by what the limit did when the probe's own requests may have held it shut too (silent-window.ts).
  expect(
    e.notes.some(
      (n) =>
        n.startsWith(`not identified: the window is longer than the probe's budget (${capS} s)`) ||
        (n.startsWith("not identified: shut past the probe's budget: ") &&
          n.includes(`the window is longer than the probe's budget (${capS} s)`)),
    ),
    e.notes.join('\n'),
  ).toBe(true);
}

describe('a window longer than the budget is said so, never guessed', () => {
  it('a minute announced, 100 s allowed: not identified, at once', async () => {
    const e = await probeOf(fixed(60, 60), 'ratelimit-headers', 100);
    expectLongerThanBudget(e, 100);
    expect(e.advertised).toMatchObject({ limit: 60, window_s: 60, agrees: null });
    expect(e.advertised?.note).toMatch(/^announced, not proven: about \d+ s of probing needed/);
    // Said after the drain: the budget is not spent on a window it cannot size.
    expect(e.duration_s).toBeLessThan(5);
  });

  it('a silent minute, 100 s allowed: not identified as soon as its second edge cannot fit', async () => {
    const e = await probeOf(fixed(60, 60), 'nothing', 100);
    expectLongerThanBudget(e, 100);
    // Half the budget: a window at least that long cannot show two edges within it.
    expect(e.duration_s).toBeLessThanOrEqual(51);
  });

  it('a silent minute, 119 s allowed: its first edge seen, the second not before the cap: not identified', async () => {
    const e = await probeOf(fixed(60, 60), 'nothing', 119);
    expectLongerThanBudget(e, 119);
    expect(e.notes.join('\n')).toMatch(/its first edge came [\d.]+ s after the limit shut, and no second one/);
  });

  it('a minute said by Retry-After alone, 100 s allowed: not identified once the second reset says how long', async () => {
    const e = await probeOf(fixed(60, 60), 'retry-after', 100);
    expectLongerThanBudget(e, 100);
  });
});

describe('go-chi/httprate 200 per 10 s behind its own headers: a counter back in part at the announced reset', () => {
  // v0.16.1 starts its windows when the front starts, just before the probe: the drain fills a
  // window just opened, and at the reset X-RateLimit-Reset announces only a few pass (it weighs the
  // drained window). The recovery after that clump then took the next lattice point for the edge
  // and the ramp it timed was "not on a line from the edge" (bench, 27 Nov 2026: not identified).
  it.each([100, 300, 700])('its front started %i ms before the probe', async (startedBeforeMs) => {
    const e = await discoverVirtual(
      { limiter: () => httprateFront(200, 10, startedBeforeMs), status: 429, announces: 'retry-after' },
      { maxDurationS: 60 },
    );
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'sliding-counter', limit: 200 });
    if (e.limiter?.kind === 'sliding-counter') expect(Math.abs(e.limiter.window_s / 10 - 1)).toBeLessThanOrEqual(0.02);
    expect(e.sustained_rps).toBeLessThanOrEqual(20 * 1.003);
    expect(e.limiter_evidence.join('\n')).toMatch(/on a line from that edge, through pings refused in between/);
    // The ramp within the window after the edge, then Retry-After's 10 s waited out once.
    expect(e.duration_s).toBeLessThan(30);
    console.log(
      `httprate front ${startedBeforeMs} ms early: ${describeLimiter(e.limiter!)} in ${e.duration_s} s, ${e.requests_sent} requests`,
    );
  });
});

/** A wall clock's epoch for the fronts that announce epoch seconds: a whole minute, 27 Nov 2026. */
const EPOCH_MS = 1_795_000_020_000;

describe('go-chi/httprate 200 per 10 s announcing epoch seconds, sized in 25 s by what its answers say', () => {
  const probeIt = (startedBeforeMs: number) =>
    discoverVirtual(
      {
        limiter: () => httprateFront(200, 10, startedBeforeMs, EPOCH_MS),
        status: 429,
        announces: 'retry-after',
        epochMs: EPOCH_MS,
      },
      { maxDurationS: 25 },
    );
  const within = (e: Estimate, share: number) => {
    expect(e.limiter, e.notes.join('\n')).toMatchObject({ kind: 'sliding-counter', limit: 200 });
    expect(Math.abs(e.sustained_rps! / 20 - 1), e.limiter_evidence.join('\n')).toBeLessThanOrEqual(share);
  };
  // Its edge 0.5 s into the probe: the window the drain ends in held 142 of it (by the ends its
  // answers announced), and the ramp after the next edge lets that many back over a window.
  // Before: not identified (the ramp weighed all 203 drained and read nothing).
  it('a drain that straddled an edge: the window after it held part, and is weighed as that', async () => {
    const e = await probeIt(9503);
    within(e, 0.005);
    expect(e.limiter_evidence.join('\n')).toMatch(/weighing the 142 it held \(the drain straddled an edge/);
  });
  // Its edge 3.2 s into the probe, no time for drains from idle two windows apart: the stream's
  // period is the 10 s its resets step by, and the client came back where they turned. Before:
  // "the stream read 19.98 req/s ... not sized".
  it('its edge soon after the drain: the stream read where the resets turn', async () => {
    const e = await probeIt(6753);
    within(e, 0.005);
    expect(e.limiter_evidence.join('\n')).toMatch(/the announced resets step by whole windows of 10 s/);
  });
});

describe("go-chi/httprate's headers at 20 phases of its window: right and within 2 %, or not identified", () => {
  // Where its windows fall against the probe decides whether the drain straddles an edge. Measured
  // 27 Nov 2026; before the ramp from the announced edge: 200 per 10 s 11 sized and 9 not
  // identified, 100 per 10 s 11 and 8 (1 a bucket at 9.91 req/s), 600 per 60 s 3 and 16 (1 a log of 608 per 60.8 s).
  // Since probe/drain-tail.ts, 100 per 10 s's bucket is not identified (refused after the drain for longer than it refills);
  // since probe/reset-ticks.ts, sized there by where its announced resets turn over (100 per 10 s: 18 -> 19 sized).
  // Since the ramp is timed for a service that announces its resets too (its edge 1.5 s or more
  // after the drain), the stream's period is checked against where those resets turn when the
  // edge trials do not fit, and a drain that straddled an edge is told by them: 600 per 60 s 17
  // sized, 2 not identified, 1 a log of 608 per 60.8 s -> 19, 1, 0.
  // As real httprate announces (epoch seconds, its window's end truncated: `epochMs`) and within
  // the bench's 2.5 windows, 200 per 10 s at 40 phases: before 16 sized, 24 not identified; after
  // 39 and 1 (its edge within the drain: the window before the next edge holds part of it, told
  // by the ends its answers announce; the bench's network row, 27 Nov 2026: not identified once).
  it.each([
    { limit: 200, windowS: 10, how: '', expected: { sized: 18, 'not identified': 2, other: 0 } },
    { limit: 100, windowS: 10, how: '', expected: { sized: 19, 'not identified': 1, other: 0 } },
    { limit: 600, windowS: 60, how: '', expected: { sized: 19, 'not identified': 1, other: 0 } },
    {
      limit: 200,
      windowS: 10,
      how: ', epoch resets, 40 phases, 25 s',
      phases: 40,
      epoch: true,
      capS: 25,
      expected: { sized: 39, 'not identified': 1, other: 0 },
    },
  ])('$limit per $windowS s$how', async ({ limit, windowS, expected, phases = 20, epoch = false, capS }) => {
    const counts = { sized: 0, 'not identified': 0, other: 0 };
    const rows: string[] = [];
    for (let i = 0; i < phases; i++) {
      const startedBeforeMs = ((i + 0.5) * windowS * 1000) / phases;
      const epochMs = epoch ? EPOCH_MS : undefined;
      const e = await discoverVirtual(
        {
          limiter: () => httprateFront(limit, windowS, startedBeforeMs, epochMs),
          status: 429,
          announces: 'retry-after',
          ...(epochMs === undefined ? {} : { epochMs }),
        },
        { maxDurationS: capS ?? Math.max(60, 3 * windowS) },
      );
      const got = e.limiter;
      const length = got?.kind === 'sliding-window' ? got.period_s : got && 'window_s' in got ? got.window_s : null;
      const sized = got?.kind === 'sliding-counter' && got.limit === limit && Math.abs(length! / windowS - 1) <= 0.02;
      counts[sized ? 'sized' : got === null ? 'not identified' : 'other']++;
      rows.push(`${startedBeforeMs} ms early: ${JSON.stringify(got)} ${e.sustained_rps} req/s, ${e.duration_s} s`);
      // Never more than it admits, beyond the window's precision.
      if (e.sustained_rps !== null) expect(e.sustained_rps, rows.at(-1)).toBeLessThanOrEqual((1.003 * limit) / windowS);
      if (got === null) expect(e.notes.join('\n'), rows.at(-1)).toMatch(/not identified|not pinned down|not sized/);
    }
    expect(counts, rows.join('\n')).toEqual(expected);
  });
});
