// The probe's stream (drain → pilot → window) as a pure reducer: fed hand-made answers, with no
// clock, no pacing and no server. Each case is what a paced probe would record from a limiter.

import { describe, expect, it } from 'vitest';
import { fitSustainedRate } from '../../src/ratelimit/estimators.js';
import {
  LEAN_EXCESS,
  LEAN_WINDOW_MS,
  LEAN_WINDOW_REFUSALS,
  MIN_RATE,
  REFUSAL_STREAK,
  initialStream,
  leanQuietMs,
  quietLimitMs,
  reduceStream,
  samplesOf,
  streamNews,
  windowComplete,
  type StreamSettings,
  type StreamState,
  type Trail,
} from '../../src/ratelimit/probe/stream-reducer.js';
import type { Answer, PhaseName, Sample } from '../../src/ratelimit/types.js';

const SETTINGS = { maxRps: 100, windowAccepts: 60, minWindowMs: 2_000 };

/** One answer as the probe records it: answered 5 ms after it left. */
const sample = (sentMs: number, answer: Answer, phase: PhaseName): Sample => ({
  sentMs,
  doneMs: sentMs + 5,
  status: answer === 'accepted' ? 200 : answer === 'limited' ? 429 : 0,
  answer,
  phase,
  client: 'primary',
});

const reduceAll = (state: StreamState, samples: readonly Sample[]): StreamState =>
  samples.reduce((s, x) => reduceStream(s, x), state);

/** A GCRA limiter (what a token bucket is, in arrival times): `rps` sustained, `burst` at once, full at t = 0. */
const gcra = (rps: number, burst: number) => {
  const emissionMs = 1000 / rps;
  let theoretical = 0;
  return (tMs: number): boolean => {
    const next = Math.max(theoretical, tMs) + emissionMs;
    if (next - tMs > burst * emissionMs) return false;
    theoretical = next;
    return true;
  };
};

/**
 * The stream as the probe runs it, minus the wire: a request every 1000 / state.rate ms, in the
 * phase the state is in, answered at once, until the state is done or `limit` requests were sent.
 */
function run(
  limiter: (tMs: number) => boolean,
  limit = 5_000,
  settings: StreamSettings = SETTINGS,
): { state: StreamState; samples: Sample[]; news: string[] } {
  let state = initialStream(settings);
  const samples: Sample[] = [];
  const news: string[] = [];
  for (let t = 0; samples.length < limit && state.stage !== 'done'; t += 1000 / state.rate) {
    const phase: PhaseName = state.stage === 'drain' ? 'drain' : state.stage === 'pilot' ? 'pilot' : 'window';
    const s = sample(t, limiter(t) ? 'accepted' : 'limited', phase);
    samples.push(s);
    const before = state;
    state = reduceStream(state, s);
    const line = streamNews(before, state, s);
    if (line) news.push(line);
  }
  return { state, samples, news };
}

describe('the stream reducer', () => {
  it('drains at max_rps until the first refusal, then times the refill, counting what passed', () => {
    const drained = reduceAll(
      initialStream(SETTINGS),
      [0, 10, 20].map((t) => sample(t, 'accepted', 'drain')),
    );
    expect(drained.stage).toBe('drain');
    expect(drained.rate).toBe(100);
    const refusal = sample(30, 'limited', 'drain');
    const after = reduceStream(drained, refusal);
    expect(after.stage).toBe('pilot');
    expect(after.firstRefusal).toBe(refusal);
    expect(after.drainAccepted).toBe(3);
    expect(streamNews(drained, after, refusal)).toBe('limit reached after 3 requests (answer 429); timing the refill');
  });

  it('says a stream that met the limit still shut so, not that it was reached after 0 requests', () => {
    const fresh = initialStream(SETTINGS);
    const refusal = sample(0, 'limited', 'drain');
    const after = reduceStream(fresh, refusal);
    expect(after.stage).toBe('pilot');
    expect(streamNews(fresh, after, refusal)).toBe(
      'limit still shut when the stream began (answer 429); timing the refill',
    );
  });

  it('finds a rough rate in the pilot and offers a quarter above it for the window', () => {
    // 20 req/s, burst 5, probed at 100 req/s: the pilot sees one acceptance every fifth request.
    const { state, news } = run(gcra(20, 5));
    expect(state.roughRate).toBeGreaterThan(19);
    expect(state.roughRate).toBeLessThan(21);
    // Five at once, and a sixth the limit freed while they went out.
    expect(news[0]).toBe('limit reached after 6 requests (answer 429); timing the refill');
    expect(news[1]).toMatch(/^about 2\d(\.\d)? req\/s; measuring the sustained rate at 2[45](\.\d)? req\/s$/);
    // The drain's burst, less what refilled while it was sent: what the limit saves when offered less.
    expect(state.savedCapacity).toBe(5);
  });

  it('completes the window only with enough acceptances, over enough time, with refusals all along', () => {
    const { state, samples } = run(gcra(20, 5));
    expect(state.stage).toBe('done');
    expect(windowComplete(state.window, SETTINGS)).toBe(true);
    const w = state.window;
    expect(w.accepted).toBe(60);
    expect(w.lastAcceptedMs - w.firstAcceptedMs).toBeGreaterThanOrEqual(2_000);
    expect(w.refused).toBeGreaterThanOrEqual(10);
    // At 1.25 × the limit about one request in five is refused: the window costs few refusals.
    const refused = samples.filter((s) => s.phase === 'window' && s.answer === 'limited').length;
    expect(refused).toBeLessThan(25);
    // Once done, further answers change nothing (in-flight requests still arrive).
    expect(reduceStream(state, sample(1e6, 'limited', 'window'))).toBe(state);
  });

  const COMPLETE = {
    restartMs: 0,
    openedMs: 0,
    accepted: 60,
    refused: 10,
    lastRefusedMs: 2_000,
    firstAcceptedMs: 100,
    lastAcceptedMs: 2_100,
    answers: undefined,
    nudgedMs: 0,
    leanRated: false,
  };
  it.each([
    ['enough of everything', {}, true],
    ['one acceptance short', { accepted: 59 }, false],
    ['a millisecond short of the shortest window', { lastAcceptedMs: 2_099 }, false],
    ['one refusal short: the limit may not have been saturated all along', { refused: 9 }, false],
  ])('a window is complete with %s: %s', (_, change, complete) => {
    expect(windowComplete({ ...COMPLETE, ...change }, SETTINGS)).toBe(complete);
  });

  it('ends the stream at the answer that completes the window, not before', () => {
    const almost: StreamState = {
      ...initialStream(SETTINGS),
      stage: 'window',
      rate: 25,
      roughRate: 20,
      lastRefusalMs: 2_100,
      window: { ...COMPLETE, refused: 8 },
    };
    const refused = reduceStream(almost, sample(2_140, 'limited', 'window'));
    expect(refused.stage).toBe('window');
    expect(reduceStream(refused, sample(2_180, 'accepted', 'window')).stage).toBe('window');
    expect(reduceStream(refused, sample(2_180, 'limited', 'window')).stage).toBe('done');
  });

  it('counts in the window only from its first refusal: before it the limit may hold saved capacity', () => {
    let state: StreamState = { ...initialStream(SETTINGS), stage: 'window', rate: 25, roughRate: 20 };
    state = reduceAll(
      state,
      [0, 40, 80].map((t) => sample(t, 'accepted', 'window')),
    );
    expect(state.window).toMatchObject({ openedMs: null, accepted: 0 });
    state = reduceAll(state, [
      sample(120, 'limited', 'window'),
      sample(160, 'accepted', 'window'),
      sample(200, 'limited', 'window'),
    ]);
    expect(state.window).toMatchObject({
      openedMs: 120,
      accepted: 1,
      refused: 1,
      firstAcceptedMs: 160,
      lastAcceptedMs: 160,
    });
  });

  it('halves the rate in the pilot after a long run of refusals, never below the floor', () => {
    let state = reduceStream(initialStream(SETTINGS), sample(0, 'limited', 'drain'));
    const refusals = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => sample(from + i, 'limited', 'pilot'));
    state = reduceAll(state, refusals(1, REFUSAL_STREAK - 2));
    expect(state.rate).toBe(100);
    state = reduceAll(state, refusals(100, 1));
    expect(state.rate).toBe(50);
    expect(state.refusalStreak).toBe(0);
    state = reduceAll(state, refusals(200, REFUSAL_STREAK * 20));
    expect(state.rate).toBe(MIN_RATE);
  });

  it('raises the rate and starts the window again when no refusal came for long', () => {
    const base: StreamState = { ...initialStream(SETTINGS), stage: 'window', rate: 25, roughRate: 20 };
    const opened = reduceAll(base, [sample(0, 'limited', 'window'), sample(40, 'accepted', 'window')]);
    // Eight refusal intervals at 25 offered against 20: 1.6 s, so the 2 s floor holds.
    expect(quietLimitMs(opened)).toBe(2_000);
    const stillSaturated = reduceStream(opened, sample(1_990, 'accepted', 'window'));
    expect(stillSaturated.rate).toBe(25);
    const quiet = reduceStream(opened, sample(2_010, 'accepted', 'window'));
    expect(quiet.rate).toBe(37.5);
    expect(quiet.raised).toBe(true);
    expect(quiet.window).toEqual({
      restartMs: 2_015,
      openedMs: null,
      accepted: 0,
      refused: 0,
      lastRefusedMs: 0,
      firstAcceptedMs: 0,
      lastAcceptedMs: 0,
      answers: undefined,
      nudgedMs: 0,
      leanRated: false,
    });
    // Never past max_rps.
    const atCeiling = reduceStream({ ...opened, rate: 80 }, sample(2_010, 'accepted', 'window'));
    expect(atCeiling.rate).toBe(100);
  });

  // A window counter met above its rate lets its quota through at each edge, then refuses all: the
  // quota's spell is no offer below the limit (a bucket of 100 and a window of 200 per 10 s: raised
  // 1.5× at each edge to 149 req/s, 100 % refused for 7 s of every 10, 3000 requests spent, 1 Dec).
  it('does not raise the rate when the quiet spell follows a shut window: it is the next quota, not a low offer', () => {
    const base: StreamState = { ...initialStream(SETTINGS), stage: 'window', rate: 44, roughRate: 35 };
    const every = (fromMs: number, toMs: number, answer: Answer) =>
      Array.from({ length: Math.floor(((toMs - fromMs) * 44) / 1000) }, (_, i) =>
        sample(fromMs + (i * 1000) / 44, answer, 'window'),
      );
    // Shut until the edge at 7 s, then the quota passes for 4.5 s.
    const shut = reduceAll(base, every(0, 7_000, 'limited'));
    const quota = reduceAll(shut, every(7_000, 11_500, 'accepted'));
    expect(quota.rate).toBe(44);
    expect(quota.raised).toBe(false);
    expect(quota.window.refused).toBeGreaterThan(quota.window.accepted);
    // The same quiet spell after refusals interleaved (a bucket a little above its rate, the offer
    // then fallen below it): raised, as before.
    const sparse = reduceAll(base, [sample(0, 'limited', 'window'), ...every(10, 2_000, 'accepted')]);
    const quiet = reduceAll(sparse, every(2_000, 4_500, 'accepted'));
    expect(quiet.rate).toBeGreaterThan(44);
    expect(quiet.raised).toBe(true);
  });

  it('reads only the complete part of the series for the rough rate: answers arrive out of order', () => {
    const { samples } = run(gcra(20, 5));
    // The answers up to the one that settled the rough rate (the last answer sent in the pilot).
    const upTo = samples.findIndex((s) => s.phase === 'window');
    const pending = reduceAll(initialStream(SETTINGS), samples.slice(0, upTo - 1));
    const last = samples[upTo - 1]!;
    expect(reduceStream(pending, last).stage).toBe('window');
    // The same answer while a request sent right after the first refusal is still in flight.
    expect(reduceStream(pending, last, pending.firstRefusal!.sentMs + 1).stage).toBe('pilot');
  });

  it('leaves the state it is given as it was', () => {
    const state = Object.freeze(reduceStream(initialStream(SETTINGS), sample(0, 'accepted', 'drain')));
    const drainBefore = samplesOf(state.drain);
    reduceStream(state, sample(10, 'limited', 'drain'));
    expect(state.stage).toBe('drain');
    expect(samplesOf(state.drain)).toEqual(drainBefore);
  });

  it(
    'keeps a long drain in time linear in its length (max_requests allows a million)',
    { timeout: 10_000 },
    async () => {
      let state = initialStream(SETTINGS);
      for (let i = 0; i < 200_000; i++) {
        state = reduceStream(state, sample(i * 10, 'accepted', 'drain'));
        // Yield now and then, so that a quadratic reducer fails by the timeout instead of hanging.
        if (i % 5_000 === 0) await new Promise(setImmediate);
      }
      state = reduceStream(state, sample(2_000_000, 'limited', 'drain'));
      expect(state.drainAccepted).toBe(200_000);
    },
  );

  it('moves on from the drain with no refusal only by the driver: a limit never met keeps it draining', () => {
    const { state, samples } = run(() => true, 500);
    expect(samples).toHaveLength(500);
    expect(state.stage).toBe('drain');
    expect(state.firstRefusal).toBeUndefined();
  });
});

describe('a rate already known from the recovery phase', () => {
  it('starts the window at the drain’s first refusal, a quarter above it, with no pilot', () => {
    let state = initialStream({ ...SETTINGS, knownRate: 20 });
    state = reduceAll(state, [sample(0, 'accepted', 'drain'), sample(10, 'accepted', 'drain')]);
    expect(state.stage).toBe('drain');
    const before = state;
    state = reduceStream(state, sample(20, 'limited', 'drain'));
    expect(state.stage).toBe('window');
    expect(state.rate).toBe(25);
    expect(state.roughRate).toBe(20);
    expect(state.window.restartMs).toBe(25);
    expect(streamNews(before, state, sample(20, 'limited', 'drain'))).toBe(
      'about 20 req/s; measuring the sustained rate at 25 req/s',
    );
  });
});

describe('a lean window (the bucket path: the rate known from timed refills)', () => {
  const LEAN: StreamSettings = { ...SETTINGS, knownRate: 20, lean: true };
  const windowOf = (samples: readonly Sample[], state: StreamState) =>
    samples.filter((x) => x.phase === 'window' && x.sentMs >= state.window.openedMs!);

  it.each([
    ['known right', 20],
    ['known a fifth low', 16],
    ['known a tenth high', 22],
  ])('offers only a little above the rate its own points show, with the rate %s', (_, known) => {
    // A bucket of 20 req/s, burst 5.
    const { state, samples } = run(gcra(20, 5), 5_000, { ...LEAN, knownRate: known });
    expect(state.stage).toBe('done');
    const window = windowOf(samples, state);
    const refused = window.filter((x) => x.answer === 'limited').length;
    // The budget: at most a tenth of the requests refused (a 1.25 × window refuses a fifth).
    expect(refused / window.length).toBeLessThan(0.1);
    expect(refused).toBeGreaterThanOrEqual(LEAN_WINDOW_REFUSALS);
    // It ends offering LEAN_EXCESS above the limit (give or take what its points can tell).
    expect(state.rate).toBeLessThan(20 * (1 + 2 * LEAN_EXCESS));
    expect(state.rate).toBeGreaterThan(20);
    // And the window still measures the rate to within a percent (the goal is 2 %).
    expect(Math.abs(fitSustainedRate(window)!.rps - 20) / 20).toBeLessThan(0.01);
  });

  it('keeps offering a quarter above when not lean', () => {
    const { state, samples } = run(gcra(20, 5), 5_000, { ...SETTINGS, knownRate: 20 });
    expect(state.rate).toBe(25);
    const window = windowOf(samples, state);
    expect(window.filter((x) => x.answer === 'limited').length / window.length).toBeGreaterThan(0.15);
  });

  it.each([
    ['five times the acceptances', { accepted: 300, lastAcceptedMs: 4_000 }, true],
    ['one short of them, before LEAN_WINDOW_MS', { accepted: 299, lastAcceptedMs: 4_000 }, false],
    [
      'fewer, but over LEAN_WINDOW_MS',
      { accepted: 100, lastAcceptedMs: 100 + LEAN_WINDOW_MS, lastRefusedMs: 9_000 },
      true,
    ],
    [
      'over LEAN_WINDOW_MS, one refusal short',
      { accepted: 100, lastAcceptedMs: 100 + LEAN_WINDOW_MS, refused: LEAN_WINDOW_REFUSALS - 1 },
      false,
    ],
    ['over LEAN_WINDOW_MS, short of windowAccepts', { accepted: 59, lastAcceptedMs: 100 + LEAN_WINDOW_MS }, false],
    // Saturated only at its start (its offer sat at the rate after a reading a little low): it goes
    // on, its offer nudged up, until a refusal comes in its second half or twice LEAN_WINDOW_MS.
    [
      'five times the acceptances, refused only in its first half',
      { accepted: 300, lastAcceptedMs: 4_000, lastRefusedMs: 2_000 },
      false,
    ],
    [
      'five times the acceptances, refused past its middle',
      { accepted: 300, lastAcceptedMs: 4_000, lastRefusedMs: 2_100 },
      true,
    ],
    [
      'refused only at its start, over twice LEAN_WINDOW_MS',
      { accepted: 300, lastAcceptedMs: 100 + 2 * LEAN_WINDOW_MS, lastRefusedMs: 500 },
      true,
    ],
  ])('is complete with %s: %s', (_, change, complete) => {
    const base = { refused: LEAN_WINDOW_REFUSALS, firstAcceptedMs: 100, lastRefusedMs: 3_900 };
    expect(windowComplete({ ...base, ...change }, LEAN)).toBe(complete);
  });

  /** A lean window opened at 1 s offering 20 req/s, its answers since sent every `everyMs` until `untilMs`, none refused. */
  const quietLean = (everyMs: number, untilMs: number): StreamState => {
    let answers: Trail = undefined;
    for (let t = 1_000 + everyMs; t < untilMs; t += everyMs)
      answers = { sample: sample(t, 'accepted', 'window'), earlier: answers };
    return {
      ...initialStream(LEAN),
      stage: 'window',
      rate: 20,
      roughRate: 19.2,
      lastRefusalMs: 1_000,
      window: {
        restartMs: 900,
        openedMs: 1_000,
        accepted: 40,
        refused: 5,
        lastRefusedMs: 1_000,
        firstAcceptedMs: 1_050,
        lastAcceptedMs: 2_000,
        answers,
        nudgedMs: 0,
        leanRated: true,
      },
    };
  };

  it('raises its offer when it goes quiet, without starting the window again', () => {
    // Opened, offering 20 req/s to a limit of about 20: no refusal since 1 s, sent at the pace asked.
    const quietMs = leanQuietMs(quietLean(50, 0));
    const opened = quietLean(50, 1_000 + quietMs);
    expect(reduceStream(opened, sample(1_000 + quietMs - 1, 'accepted', 'window')).rate).toBe(20);
    const nudged = reduceStream(opened, sample(1_000 + quietMs + 1, 'accepted', 'window'));
    expect(nudged.rate).toBeCloseTo(20 * (1 + LEAN_EXCESS), 6);
    expect(nudged.window.restartMs).toBe(900);
    expect(nudged.window.accepted).toBe(41);
  });

  it('raises it as much again as its stalls kept it from sending: the limit is saturated between them', () => {
    // The machine stalled the sender a fifth of the time: 16 req/s went out of the 20 asked.
    const quietMs = leanQuietMs(quietLean(50, 0));
    const nudged = reduceStream(quietLean(62.5, 1_000 + quietMs), sample(1_000 + quietMs + 1, 'accepted', 'window'));
    expect(nudged.rate / (20 * (1 + LEAN_EXCESS))).toBeGreaterThan(1.2);
    expect(nudged.rate / (20 * (1 + LEAN_EXCESS))).toBeLessThan(1.3);
    // A sender that kept less than half its pace is made up for only to double: no steady stream to read there.
    const starved = reduceStream(quietLean(500, 1_000 + quietMs), sample(1_000 + quietMs + 1, 'accepted', 'window'));
    expect(starved.rate).toBeCloseTo(2 * 20 * (1 + LEAN_EXCESS), 6);
  });
});
