// A limit that delays instead of refusing, deeper than the probe's 128 requests in flight (a pacer,
// nginx limit_req without nodelay and a burst of thousands, a shaping gateway), or a service that
// takes one request at a time: no request is refused, yet the service answers a steady pace and no
// faster, each answer later than the one before. Before, the probe said "no limit met … run it
// again on a quieter machine" (`serve --limiter queue --rate-limit 20 --burst 5000`), and
// `ratelimit` gave a client nothing. Now the pace is read (probe/queued-pace.ts) and is the top of
// a bracket that `ratelimit`'s paced rounds search below (rate-bracket.ts queuedBracket), with a
// policy that keeps few requests in its line; `run`, whose rounds are too short, says it untested.
// Whole probe (discover) on the virtual clock.

import { describe, expect, it } from 'vitest';
import { LINE_READ_ANSWERS } from '../../src/ratelimit/probe/line-read.js';
import { searchStart } from '../../src/ratelimit/rate-bracket.js';
import { lineTimedOut, summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { judgedBeforeRounds as judged } from './judged-before-rounds.js';
import { closingSustainedText } from '../../src/report/sections/rate-limit/words.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { relativeError } from './support.js';
import { discoverVirtual, fromModel, noLimit, type Limiter, type VirtualEndpoint } from './virtual-limit.js';

/** A queue `rate` a second, far deeper than the probe's requests in flight. */
const deepQueue = (rate: number) => () => fromModel({ kind: 'queue', rate_rps: rate, burst: 100_000, delay: 0 });

describe('a limit that delays instead of refusing, deeper than the probe reaches', () => {
  it.each([
    { name: 'a queue of 20 req/s', rate: 20, world: { limiter: deepQueue(20) } },
    { name: 'a queue of 50 req/s', rate: 50, world: { limiter: deepQueue(50) } },
    {
      name: 'a queue of 20 req/s across a network',
      rate: 20,
      world: { limiter: deepQueue(20), network: { oneWayMs: 50, jitterMs: 10 } },
    },
    {
      name: 'a service taking one request every 40 ms',
      rate: 25,
      world: { limiter: noLimit, served: { everyMs: 40 } },
    },
  ] as Array<{ name: string; rate: number; world: Pick<VirtualEndpoint, 'limiter' | 'network' | 'served'> }>)(
    '$name: its pace read, searched below by `ratelimit`, untested by `run`',
    async ({ rate, world }) => {
      const e = await discoverVirtual({ status: 429, ...world }, { maxDurationS: 60 });
      const context = JSON.stringify({ ...e, timeline: undefined, replay_timeline: undefined }).slice(0, 3000);
      expect(e.limiting_status, context).toBeNull();
      expect(relativeError(e.served_rps ?? null, rate), context).toBeLessThanOrEqual(0.02);
      const bracket = e.rate_bracket!;
      expect(bracket.high, context).toBe(e.served_rps);
      expect(bracket.low, context).toBeLessThan(bracket.high);
      expect(bracket.drained).toBe(0);
      // The line the probe left empties before a round begins: as long as its last answer waited.
      expect(bracket.restS).toBeGreaterThanOrEqual(1);
      expect(e.notes.join('\n')).toContain('a limit that delays instead of refusing');
      // The drain ended once it had read the line (probe/line-read.ts), not at its cap of 1,800
      // requests: the rest only waited in the line. Four hundred answers, and those in flight then.
      expect(e.requests_sent, context).toBeLessThan(LINE_READ_ANSWERS + 200);

      // `ratelimit` searches; `run` says why not, and how to get it.
      const ratelimit = judged(e);
      expect(ratelimit.untested).toEqual([]);
      // The search begins below the pace, within 75 % of it: a round there holds without a line.
      expect(ratelimit.search!.target_rps).toBeLessThanOrEqual(bracket.low);
      expect(ratelimit.search!.target_rps).toBeGreaterThanOrEqual(0.75 * bracket.high);
      const run = judged(e, 'run');
      expect(run.search).toBeNull();
      expect(run.untested.join('\n')).toMatch(
        /no 429 met, but the service answered no faster than [\d.]+\/s.*`ces-harness ratelimit` searches/,
      );

      // The search's first policy keeps few requests in the line: its first answers' time, not the line's.
      const first = searchStart(e)!;
      const lineMs = Math.ceil((first.max_concurrency / e.served_rps!) * 1000);
      expect(first.max_concurrency, first.why.join('\n')).toBeLessThanOrEqual(world.network ? 5 : 4);
      expect(first.why.join('\n')).toContain(
        `line: at ${first.target_rps} req/s and at most ${first.max_concurrency} in flight, the service's line adds at most ${lineMs} ms`,
      );
      // Every format says the pace, never "no limit" nor "a quieter machine".
      const said = summaryLines(toRateLimitResult(e, null, null)).join('\n');
      expect(said).toContain(`no 429 met, but the service answered no faster than ${e.served_rps} req/s`);
      expect(said).not.toMatch(/quieter machine|no limit up to|served: the service answered what the limit admitted/);
    },
  );

  // Answers that are slow for each request are no line: the first, sent alone, is as late as the last.
  it('a service slow for every request (1 s each), no limit: not a pace, nor searched', async () => {
    const e = await discoverVirtual(
      { limiter: noLimit, status: 429, answerDelay: { meanMs: 1000, jitterMs: 50 } },
      { maxDurationS: 30 },
    );
    expect(e.served_rps).toBeUndefined();
    expect(e.rate_bracket).toBeUndefined();
    const ratelimit = judged(e);
    expect(ratelimit.search).toBeNull();
    expect(summaryLines(toRateLimitResult(e, null, null)).join('\n')).not.toContain('no 429 met, but');
  });

  // The verdict's closing line scopes a held rate to what was met: a pace, no 429.
  it('the closing line of a rate held below a pace says no 429 was met, and that a 429 above is not tested', () => {
    const r = { sustained_rps: 18, duration_s: 90, served_rps: 20 };
    expect(closingSustainedText({ ...r, limiting_status: null })).toContain(
      '; no 429 was met: the service answered no faster than 20 req/s, and a 429 limit above that is not tested',
    );
    expect(closingSustainedText({ ...r, limiting_status: 429 })).toContain('; the service answered at only 20 req/s');
  });

  // A pace slow enough that 128 in flight wait past the request timeout: most answers never came,
  // and the probe is unusable (not tested) whatever the line; the why says how to read the pace.
  it('a line longer than the request timeout: the timeout that lets it be answered is said', () => {
    const line = { served_rps: 10, limiting_status: null };
    expect(lineTimedOut(line, 10)).toBe(
      "; the answers that came back came later and later at a steady 10 req/s, so the others may have waited in the service's line past the 10 s request timeout (128 in flight at 10 req/s wait 12.8 s): --request-timeout 26 (request_timeout_s) lets them be answered",
    );
    // A line well within the timeout, a limit that refused, or no line: nothing to add.
    expect(lineTimedOut({ served_rps: 50, limiting_status: null }, 10)).toBeUndefined();
    expect(lineTimedOut({ served_rps: 10, limiting_status: 429 }, 10)).toBeUndefined();
    expect(lineTimedOut({ limiting_status: null }, 10)).toBeUndefined();
    expect(lineTimedOut({ served_rps: 0.1, limiting_status: null }, 10)).toContain('--request-timeout 600 ');
  });

  // Little's law sized the in-flight count by the latency, which a line grows with every request more
  // in flight: against 10 req/s the count ran to 128, which wait 12.8 s, past the default 10 s
  // timeout, and the probe read nothing (session 59: 147 of 255 answers never came). Held to what the
  // answers' pace clears in half the timeout, the line stays within it and its pace is read.
  // Slower lines fill before four answers tell their pace (5 req/s: 128 in flight by then, 25 s):
  // there the request timeout the not-tested line names is the way (above).
  it.each([
    { rate: 10, timeoutS: 10 },
    { rate: 20, timeoutS: 4 },
  ])(
    'a line of $rate req/s, the request timeout $timeoutS s: no answer waits past half of it',
    async ({ rate, timeoutS }) => {
      const record: Sample[] = [];
      const e = await discoverVirtual(
        { status: 429, limiter: deepQueue(rate) },
        { maxDurationS: 60, requestTimeoutMs: timeoutS * 1000, record },
      );
      const longestS = Math.max(...record.map((s) => s.doneMs - s.sentMs)) / 1000;
      // Half the timeout, and what Little's law let in before the pace was known (four answers).
      expect(longestS).toBeLessThanOrEqual(timeoutS * 0.75);
      expect(relativeError(e.served_rps ?? null, rate), JSON.stringify(e.notes)).toBeLessThanOrEqual(0.02);
      // Without the hold, the same line grew past the timeout.
      const unheld: Sample[] = [];
      await discoverVirtual(
        { status: 429, limiter: deepQueue(rate) },
        { maxDurationS: 60, record: unheld, requestTimeoutMs: undefined },
      );
      expect(Math.max(...unheld.map((s) => s.doneMs - s.sentMs)) / 1000).toBeGreaterThan(timeoutS);
    },
  );

  // The line may be the probe's own machine's (CI ci-59A: an in-process server's 100 KB bodies beside
  // other tests held the event loop to 71 a second): then no pace is read, and the note says why.
  it("a line while this process was busy: not read as the service's pace", async () => {
    const busy = () => ({ cpuShare: () => 0.9, lagP99Ms: () => 20, stop: () => undefined });
    const e = await discoverVirtual({ limiter: deepQueue(20), status: 429 }, { maxDurationS: 60, ownLoad: busy });
    expect(e.served_rps).toBeUndefined();
    expect(e.rate_bracket).toBeUndefined();
    expect(e.notes.join('\n')).toContain(
      'each later than the one before, but this process used 90 % of a core and its timers ran up to 20 ms late (p99): the line may be this machine',
    );
    expect(judged(e).search).toBeNull();
  });

  // A line of its own making: every request it serves takes 4 ms longer than the last, whatever is in flight.
  it('a service slower with every request it serves, no limit: its falling pace is not read', async () => {
    let served = 0;
    const slowing = () => {
      const decide: Limiter = () => {
        decide.queuedMs = 4 * served++;
        return undefined;
      };
      return decide;
    };
    const e = await discoverVirtual({ limiter: slowing, status: 429 }, { maxDurationS: 60 });
    expect(e.limiting_status).toBeNull();
    expect(e.served_rps, e.notes.join('\n')).toBeUndefined();
    expect(e.rate_bracket).toBeUndefined();
  });

  // The nginx queues the probe's requests reach are identified as before: refused past their depth.
  it('a queue the probe fills (20 req/s, 10 deep): a queue identified, no pace read', async () => {
    const e = await discoverVirtual({
      limiter: () => fromModel({ kind: 'queue', rate_rps: 20, burst: 10, delay: 0 }),
      status: 429,
    });
    expect(e.limiter?.kind).toBe('queue');
    expect(e.served_rps).toBeUndefined();
  });
});
