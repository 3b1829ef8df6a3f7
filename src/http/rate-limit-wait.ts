// Waiting out a 429 met on the way. Real services limit every client, and a check about token
// expiry must not fail because a rate limit answered first; so the client honours Retry-After,
// else backs off exponentially with full jitter, within a bounded budget so a service that never
// lets up ends the check with RateLimitedError instead of hanging it. Requests that share one limit
// share a LimitPacer (limit-pacer.ts): once it refuses one, they wait their turn, and the budget
// counts the waits the limit asks of each while its turn lasts.

import type { Clock } from '../time/clock.js';
import type { Exchange } from './exchange.js';
import { fullJitterMs } from '../toolkit/backoff.js';
import { retryAfterDelayMs } from '../spec/retry-after.js';
import { retryAfterMs } from './retry-after.js';
import type { LimitPacer } from './limit-pacer.js';

export interface RateLimitBudget {
  /** Longest total wait for one logical request, across its retries. */
  maxTotalWaitMs: number;
  maxRetries: number;
  /** Backoff when the 429 carries no usable Retry-After. */
  baseMs: number;
  capMs: number;
}

export const DEFAULT_RATE_LIMIT_BUDGET: RateLimitBudget = {
  maxTotalWaitMs: 60_000,
  maxRetries: 10,
  baseMs: 250,
  capMs: 8_000,
};

export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  /** The last 429, as evidence: a check that was waiting for recovery can judge with it. */
  readonly last: Exchange;
  constructor(message: string, last: Exchange) {
    super(message);
    this.last = last;
  }
}

export interface WaitOutOptions {
  budget: RateLimitBudget;
  /** Retry-After is read against its now(), the wait is its sleep. */
  clock: Clock;
  random: () => number;
  /** Shared by the requests that meet one limit: once it refuses, they wait their turn in it. */
  pacer?: LimitPacer;
}

/** Sends until the answer is not a 429 (or `waitOut` is false), recording the waits on the exchange. */
export async function sendWaitingOut429(
  sendOnce: () => Promise<Exchange>,
  waitOut: boolean,
  { budget, clock, random, pacer }: WaitOutOptions,
): Promise<Exchange> {
  // 'late': the head of the line gave up on the limit; this one goes once, out of turn, and a 429 ends it.
  type Turn = 'none' | 'held' | 'late';
  let turn = 'none' as Turn;
  let gaveUp = false;
  const takeTurn = async (): Promise<Turn> => (pacer ? ((await pacer.turn()) ? 'held' : 'late') : 'none');
  try {
    if (waitOut && pacer?.engaged) turn = await takeTurn();
    // Only the waits the limit asks of this request count against its budget, not its time in line.
    let waited = 0;
    for (let attempt = 0; ; attempt++) {
      const exchange = await sendOnce();
      exchange.rateLimitWaits = attempt;
      if (exchange.status !== 429 || !waitOut) return exchange;
      const refusedAt = clock.now();
      if (turn === 'none') turn = await takeTurn();
      const backoff = fullJitterMs(budget.baseMs, budget.capMs, attempt, random);
      const advised = retryAfterMs(exchange.headers['retry-after'], refusedAt) ?? backoff;
      // Its turn may have come after part of the advised wait, or all of it.
      const wait = Math.max(0, refusedAt + advised - clock.now());
      if (turn === 'late' || attempt >= budget.maxRetries || waited + wait > budget.maxTotalWaitMs) {
        gaveUp = true;
        throw new RateLimitedError(
          refusedPast(
            exchange.request,
            // Asked, even where past what the client honours (retry-after.ts): it says how long the limit stays spent.
            {
              tries: attempt + 1,
              waitedMs: waited,
              askedMs: retryAfterDelayMs(exchange.headers['retry-after'], refusedAt),
            },
            budget,
            turn === 'late',
          ),
          exchange,
        );
      }
      waited += wait;
      pacer?.waiting(exchange.request, wait);
      await clock.sleep(wait);
    }
  } finally {
    if (turn === 'held') pacer?.release(gaveUp);
  }
}

/**
 * Why a request gave up on the limit. `askedMs`: the last 429's Retry-After, so a limit spent for
 * an hour reads as that, not as a limit that never lifts.
 */
function refusedPast(
  request: string,
  { tries, waitedMs, askedMs }: { tries: number; waitedMs: number; askedMs: number | undefined },
  budget: RateLimitBudget,
  late: boolean,
): string {
  const budgetS = Math.round(budget.maxTotalWaitMs / 1000);
  const asked = askedMs === undefined ? '' : `; the last 429's Retry-After asked ${Math.round(askedMs / 1000)} s more`;
  const bound = late
    ? `the request ahead of it in line had given up on the limit past the wait budget of ${budgetS} s`
    : tries > budget.maxRetries
      ? `past ${budget.maxRetries} retries`
      : `past the wait budget of ${budgetS} s`;
  return `${request} was still rate-limited (429) after ${tries} ${tries === 1 ? 'try' : 'tries'} and ${Math.round(waitedMs / 1000)} s of waiting, ${bound}${asked}`;
}
