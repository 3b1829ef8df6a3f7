// Waiting out a 429 met on the way. Real services limit every client, and a check about token
// expiry must not fail because a rate limit answered first; so the client honours Retry-After,
// else backs off exponentially with full jitter, within a bounded budget so a service that never
// lets up ends the check with RateLimitedError instead of hanging it.

import type { Clock } from '../time/clock.js';
import type { Exchange } from './exchange.js';
import { retryAfterMs } from './retry-after.js';

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
}

/** Sends until the answer is not a 429 (or `waitOut` is false), recording the waits on the exchange. */
export async function sendWaitingOut429(
  sendOnce: () => Promise<Exchange>,
  waitOut: boolean,
  { budget, clock, random }: WaitOutOptions,
): Promise<Exchange> {
  let waited = 0;
  for (let attempt = 0; ; attempt++) {
    const exchange = await sendOnce();
    exchange.rateLimitWaits = attempt;
    if (exchange.status !== 429 || !waitOut) return exchange;
    const backoff = Math.min(budget.capMs, budget.baseMs * 2 ** attempt) * random();
    const wait = retryAfterMs(exchange.headers['retry-after'], clock.now()) ?? backoff;
    if (attempt >= budget.maxRetries || waited + wait > budget.maxTotalWaitMs) {
      throw new RateLimitedError(
        `${exchange.request} was still rate-limited (429) after ${attempt + 1} tries and ${Math.round(waited / 1000)} s of waiting`,
        exchange,
      );
    }
    waited += wait;
    await clock.sleep(wait);
  }
}
