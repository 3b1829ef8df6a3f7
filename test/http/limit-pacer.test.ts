// Sixteen requests meeting one limit of 1 req/s, on a virtual clock. Each waiting out its own
// 429s, all woken by the same Retry-After, lets one through a second and the rest run out of tries
// (30 Nov, against a conformant sandbox); sharing a LimitPacer, they go one at a time and all are
// answered. A limit that never lifts still ends every one with the last 429, within one budget.

import { describe, expect, it } from 'vitest';
import { LimitPacer } from '../../src/http/limit-pacer.js';
import { RateLimitedError, sendWaitingOut429, type RateLimitBudget } from '../../src/http/rate-limit-wait.js';
import { virtualClock } from '../../src/time/clock.js';
import { scriptedAnswer } from '../helpers/scripted-answer.js';

const BUDGET: RateLimitBudget = { maxTotalWaitMs: 60_000, maxRetries: 10, baseMs: 250, capMs: 8_000 };

const answer = (status: number, headers: Record<string, string> = {}) =>
  scriptedAnswer(status, headers, 'POST /tokens');

/** A fixed window of one request a second, on whole seconds of the clock; or one that never admits. */
function service(neverLifts = false) {
  const clock = virtualClock(Date.UTC(2031, 0, 1, 12, 0, 0, 300));
  let windowIndex = -1;
  let sent = 0;
  const sendOnce = async () => {
    sent++;
    const index = Math.floor(clock.now() / 1000);
    if (!neverLifts && index !== windowIndex) {
      windowIndex = index;
      return answer(200);
    }
    return answer(429, { 'retry-after': '1' });
  };
  return { clock, sendOnce, sent: () => sent };
}

async function sixteen(pacer: LimitPacer | undefined, neverLifts = false) {
  const s = service(neverLifts);
  const started = s.clock.now();
  const options = { budget: BUDGET, clock: s.clock, random: () => 0.5, ...(pacer ? { pacer } : {}) };
  const outcomes = await Promise.all(
    Array.from({ length: 16 }, () =>
      sendWaitingOut429(s.sendOnce, true, options).then(
        (ex) => `${ex.status}`,
        (err: unknown) => (err instanceof RateLimitedError ? `gave up: ${err.last.status}` : String(err)),
      ),
    ),
  );
  return { outcomes, seconds: (s.clock.now() - started) / 1000, sent: s.sent() };
}

describe('requests sharing a limit of 1 req/s', () => {
  it('each on its own: one a second gets through and the others run out of tries', async () => {
    const { outcomes } = await sixteen(undefined);
    expect(outcomes.filter((o) => o === '200').length).toBeLessThan(16);
  });

  it('sharing a pacer: all sixteen answered, one a second, each refused at most twice', async () => {
    const { outcomes, seconds, sent } = await sixteen(new LimitPacer());
    expect(outcomes).toEqual(Array(16).fill('200'));
    expect(seconds).toBeLessThanOrEqual(17);
    // The sixteen sent together, then in turn: sent at once after the one before got in, refused
    // for the rest of that second, then admitted.
    expect(sent).toBeLessThanOrEqual(16 + 2 * 15);
  });

  it('a limit that never lifts: the head of the line gives up, and with it every one behind, within one budget', async () => {
    const { outcomes, seconds } = await sixteen(new LimitPacer(), true);
    expect(outcomes).toEqual(Array(16).fill('gave up: 429'));
    // The head's ten retries a second apart, not ten for each of the sixteen in turn.
    expect(seconds).toBeLessThanOrEqual(BUDGET.maxRetries + 1);
  });
});

describe('a long wait in the limit is said aloud', () => {
  /** A window that lifts every 30 s: the checks behind it would be silent for minutes. */
  it('each wait of the head of the line is a progress line naming the request, the wait and the line behind it', async () => {
    const clock = virtualClock(Date.UTC(2031, 0, 1, 12, 0, 0, 300));
    let windowIndex = -1;
    const sendOnce = async () => {
      const index = Math.floor(clock.now() / 30_000);
      if (index !== windowIndex) {
        windowIndex = index;
        return answer(200);
      }
      return answer(429, { 'retry-after': '30' });
    };
    const lines: string[] = [];
    const pacer = new LimitPacer((line) => lines.push(line));
    const options = { budget: { ...BUDGET, maxTotalWaitMs: 120_000 }, clock, random: () => 0.5, pacer };
    const outcomes = await Promise.all(Array.from({ length: 3 }, () => sendWaitingOut429(sendOnce, true, options)));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200]);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(
      /^rate limited \(429\) on POST \/tokens: waiting 30\.0 s before its next try, 1 more of the checks' requests in line behind it$/,
    );
    expect(lines.at(-1)).toMatch(/waiting \d+\.\d s before its next try$/);
  });

  it('a wait under two seconds is not said', async () => {
    const lines: string[] = [];
    await sixteen(new LimitPacer((line) => lines.push(line)));
    expect(lines).toEqual([]);
  });
});
