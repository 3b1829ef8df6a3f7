import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/http/exchange.js';
import { RateLimitedError, sendWaitingOut429, type RateLimitBudget } from '../../src/http/rate-limit-wait.js';
import { virtualClock } from '../../src/time/clock.js';
import { scriptedAnswer } from '../helpers/scripted-answer.js';

const answer = scriptedAnswer;

const BUDGET: RateLimitBudget = { maxTotalWaitMs: 10_000, maxRetries: 3, baseMs: 100, capMs: 1_000 };

/** A service that answers the given statuses in order, on a virtual clock that records the waits. */
function scripted(answers: Exchange[]) {
  const waits: number[] = [];
  let sent = 0;
  const sendOnce = async () => answers[Math.min(sent++, answers.length - 1)]!;
  const virtual = virtualClock(Date.UTC(2031, 0, 1, 12, 0, 0));
  const clock = { now: virtual.now, sleep: (ms: number) => (waits.push(ms), virtual.sleep(ms)) };
  const options = { budget: BUDGET, clock, random: () => 0.5 };
  return { sendOnce, options, waits, sent: () => sent, clock };
}

describe('sendWaitingOut429', () => {
  it('honours Retry-After, then hands back the answer with the waits counted', async () => {
    const s = scripted([answer(429, { 'retry-after': '2' }), answer(200)]);
    const ex = await sendWaitingOut429(s.sendOnce, true, s.options);
    expect(ex.status).toBe(200);
    expect(ex.rateLimitWaits).toBe(1);
    expect(s.waits).toEqual([2_000]);
  });

  it("reads a Retry-After date against the client's clock, not the machine's", async () => {
    const s = scripted([answer(429), answer(200)]);
    // Three seconds after the clock's start, which is years away from the machine's.
    const at = new Date(s.clock.now() + 3_000).toUTCString();
    const ex = await sendWaitingOut429(
      async () => (s.sent() === 0 ? { ...(await s.sendOnce()), headers: { 'retry-after': at } } : s.sendOnce()),
      true,
      s.options,
    );
    expect(ex.status).toBe(200);
    expect(s.waits).toEqual([3_000]);
  });

  it('backs off exponentially with jitter when the 429 names no Retry-After', async () => {
    const s = scripted([answer(429), answer(429), answer(200)]);
    await sendWaitingOut429(s.sendOnce, true, s.options);
    // base 100 ms × 2^attempt, times the jitter of 0.5
    expect(s.waits).toEqual([50, 100]);
  });

  it('hands a 429 back at once when told not to wait', async () => {
    const s = scripted([answer(429, { 'retry-after': '2' }), answer(200)]);
    const ex = await sendWaitingOut429(s.sendOnce, false, s.options);
    expect(ex.status).toBe(429);
    expect(s.sent()).toBe(1);
    expect(s.waits).toEqual([]);
  });

  it('gives up with RateLimitedError, carrying the last 429, once the retries are spent', async () => {
    const s = scripted([answer(429, { 'retry-after': '1' })]);
    const err = await sendWaitingOut429(s.sendOnce, true, s.options).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).last.status).toBe(429);
    expect(s.sent()).toBe(BUDGET.maxRetries + 1);
  });

  // A limit spent for an hour (Flask-Limiter's "50 per hour") reads as that, not as one that never lifts.
  it("gives up naming the last Retry-After, even one past what it honours; a backoff's wait is not one", async () => {
    const s = scripted([answer(429, { 'retry-after': '3570' })]);
    const err = (await sendWaitingOut429(s.sendOnce, true, s.options).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^GET \/tokens\/validate was still rate-limited \(429\) after 4 tries and 0 s of waiting, past 3 retries; the last 429's Retry-After asked 3570 s more$/,
    );
    const within = scripted([answer(429, { 'retry-after': '8' })]);
    const past = (await sendWaitingOut429(within.sendOnce, true, within.options).catch((e: unknown) => e)) as Error;
    expect(past.message).toMatch(
      /after 2 tries and 8 s of waiting, past the wait budget of 10 s; the last 429's Retry-After asked 8 s more$/,
    );
    const untold = scripted([answer(429)]);
    const backedOff = (await sendWaitingOut429(untold.sendOnce, true, untold.options).catch(
      (e: unknown) => e,
    )) as Error;
    expect(backedOff.message).toMatch(/past 3 retries$/);
  });
});
