// What a well-behaved client does with 429 (§7: "wait and retry"): honour Retry-After when the
// service sends it, else exponential backoff with full jitter (base, cap and retry count from
// CES_BACKOFF_BASE_MS, CES_BACKOFF_CAP_MS, CES_MAX_RETRIES), and give up after the retry count or
// a time budget. Every scenario sends through this, so a rate-limited run measures the service,
// not a client that hammers it.

import { check, sleep } from 'k6';
import type { Backoff } from '../../src/k6/contract.js';
import type { ScenarioConfig } from './config';
import { isErrorBody, type Res } from './endpoints';
import { counter, tally } from './metrics';
import { retryAfterDelayMs } from '../../src/spec/retry-after.js';
import { fullJitterMs } from '../../src/toolkit/backoff.js';

export const rateLimitedResponses = counter('rate_limited_responses');
export const retriesMetric = counter('retries');
/** Waits taken from a Retry-After header (the rest used backoff). */
export const retryAfterWaits = counter('retry_after_waits');
/** One logical call that never got a 2xx-or-expected answer: given up on 429s, or a 5xx/other error. */
export const logicalCallsLost = tally('logical_calls_lost');

export interface Outcome {
  /** The last answer. */
  res: Res;
  attempts: number;
  /**
   * What the call cost the client, ms: each attempt's request time as k6 measures it
   * (http_req_duration) plus any new connection's TCP and TLS set-up, plus the waits between
   * attempts. Sub-millisecond, unlike Date.now() differences.
   */
  costMs: number;
  /** Still 429 when the budget ran out. */
  exhausted: boolean;
  /** Epoch ms around the last attempt: the window in which the service judged it (src/time/expiry-edges.ts). */
  sentAt: number;
  receivedAt: number;
}

/** What the answer's Retry-After asks for (src/spec/retry-after.ts), ms; undefined when none. */
export const retryAfterMs = (res: Res): number | undefined => retryAfterDelayMs(res.headers['Retry-After'], Date.now());

export function withRetry(cfg: ScenarioConfig, send: () => Res): Outcome {
  const started = Date.now();
  const budgetMs = cfg.retryBudgetS * 1000;
  let costMs = 0;
  for (let attempt = 0; ; attempt++) {
    const sentAt = Date.now();
    const res = send();
    const receivedAt = Date.now();
    costMs += res.timings.duration + res.timings.connecting + res.timings.tls_handshaking;
    if (res.status !== 429) return { res, attempts: attempt + 1, costMs, exhausted: false, sentAt, receivedAt };

    rateLimitedResponses.add(1);
    check(res, { 'A 429 answer is a JSON object with a string `error` (§7)': (r) => isErrorBody(r) });

    const header = retryAfterMs(res);
    // Retry-After is a floor. It comes in whole seconds, so every VU limited within one second
    // is told the same instant; spreading them over up to half as long again turns that wave
    // into a trickle the bucket can admit.
    const b = cfg.backoff;
    const waitMs =
      header !== undefined
        ? header + Math.random() * Math.max(b.baseMs, header / 2)
        : fullJitterMs(b.baseMs, b.capMs, attempt, Math.random);
    if (attempt >= b.maxRetries || Date.now() - started + waitMs > budgetMs) {
      return { res, attempts: attempt + 1, costMs, exhausted: true, sentAt, receivedAt };
    }
    if (header !== undefined) retryAfterWaits.add(1);
    retriesMetric.add(1);
    sleep(waitMs / 1000);
    costMs += waitMs;
  }
}

/** Counts the logical call as lost unless its final answer is one of `ok` (default: any 2xx). */
export function settle(outcome: Outcome, ok: (status: number) => boolean = (s) => s >= 200 && s < 300): boolean {
  const fine = !outcome.exhausted && ok(outcome.res.status);
  logicalCallsLost.add(fine ? 0 : 1);
  return fine;
}
