// Rate limiting as a well-behaved client lives it (§7: 429 means "wait and retry"; §8: a limit
// exists, its size is not given). Two load shapes (CES_RATE_PROFILE):
// - spike (default): an arrival rate of CES_RATE logical calls per second — meant to be above the
//   service's limit — for a short spike (SPIKE_S, at most 30 % of CES_DURATION_S), then a tenth of
//   it for the rest. A steady rate over the limit is a backlog that grows for as long as it lasts,
//   which no retry budget absorbs; a spike followed by a trickle is what a correct client must
//   survive: every logical call gets through by waiting out 429s;
// - steady: CES_RATE logical calls per second for all of CES_DURATION_S. `ces-harness ratelimit`
//   runs this at its recommended rate with its recommended backoff, to prove the policy.
// Each logical call waits out 429s (Retry-After, else full-jitter backoff from CES_BACKOFF_BASE_MS,
// CES_BACKOFF_CAP_MS, CES_MAX_RETRIES) within CES_RETRY_BUDGET_S; logical_calls_ok counts those
// that succeeded (goodput).
// Pass: no logical call lost (logical_calls_lost == 0), every 429 has a JSON {"error": string}
// body, and nothing but 2xx/429 comes back: a 503 (or any 5xx) under load is a failed request and
// a lost call, so a service that sheds load with 503 instead of 429 fails here. A token turning
// over mid-run is normal life (a 401 at its turn gets the next token and one more try); a 401
// certainly before its expires_at counts in token_refused_before_expiry and fails the run.
// The endpoint is CES_RATE_LIMIT_ENDPOINT (config rate_limit.endpoint), business.evaluation by default.

import { check, sleep } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import type { Scenario } from 'k6/options';
import { EXPECTED_STATUSES, businessAnswered } from './lib/business-answer';
import { readConfig } from './lib/config';
import { callRateLimitEndpoint, type Res } from './lib/endpoints';
import { counter, gauge, tally, timeTrend } from './lib/metrics';
import { scenarioOptions, secs } from './lib/options';
import { logicalCallsLost, settle, withRetry } from './lib/retry';
import { summaryHandler } from './lib/summary';
import type { CallOptions } from './lib/endpoints';
import { TokenCache, callWithToken, shareToken, tokenTurnoverFigures, type SharedToken } from './lib/tokens';

const cfg = readConfig();

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

const serverErrors = tally('server_errors');
const callsOk = tally('logical_calls_ok');
// When each call that met a 429 started, ms into the run: its minimum is when refusals began, so a
// proof that fails tells a rate refused from the start from a quota met after N requests (a second
// limit on a longer window), src/ratelimit/refuted.ts.
const refusedCallStart = timeTrend('refused_call_start');
// When the arrivals began and when the first refused call did, ms since the epoch (the gauges' min):
// k6 begins some tenths of a second after it is spawned, and exec.scenario.startTime comes a few
// tenths before its first arrival (setup between), so a second limit's window is replayed from the
// first arrival (src/ratelimit/stacked-inference.ts), and refusals_began_s counts from it.
const arrivalsBegan = gauge('arrivals_began_ms');
const refusedFrom = gauge('first_refused_call_ms');
let beganNoted = false;
// When a call first succeeded after this VU's own first refused call (its retry, or a later call),
// ms since the epoch; the gauge's min over the VUs is when the limit first let one through again
// after the refusals began: at once from a bucket (it refills continuously), only at its edge on the
// clock from a fixed window. It tells the two apart from one round (src/ratelimit/stacked-inference.ts).
const admittedAgain = gauge('admitted_again_ms');
let admittedAgainNoted = false;
// A proof round that has certainly failed ends early (CES_CUT_JSON, src/ratelimit/prove.ts roundCut):
// each VU counts here the 429s it meets once a while has passed since its own first refused call
// (never before the run's first), and the threshold below stops the run (exit 99, summary written)
// once they alone break the promise. The last arrival gives the length the figures are over.
const refusalsPastCut = counter('proof_refusals_past_cut');
// And the arrivals k6 dropped, as a VU reckons them when it starts one past the same moment: those
// due since its own first call less those begun since (iterationInTest numbers the begun ones, not
// the dropped), so drops before that call are left out and the reckoning never exceeds k6's count
// but by a request or two. One passing cut.maxDropped ends the round too (drops only grow): k6 had no VU
// free, each held by a call waiting out refusals, for more of the round's arrivals than the promise
// allows (src/ratelimit/prove.ts droppedBreaking).
const droppedPastCut = gauge('proof_dropped_past_cut');
let firstCall: { atMs: number; iteration: number } | undefined;
const arrivalsLast = gauge('arrivals_last_ms');
let firstRefusedMs: number | undefined;

// Long enough to run past a bucket's burst and get 429s, short enough that the excess drains
// within one retry budget once the rate falls to a tenth.
const SPIKE_S = 3;
const spikeS = Math.min(SPIKE_S, cfg.durationS * 0.3);
const AFTER_SPIKE_SHARE = 0.1;
// k6 ramps between stages; this short a ramp is, for the limiter, a step down.
const STEP_S = 0.2;
// A spike starts on a token that outlives it and its drain (about as long again): a turnover in the
// spike would add one POST /tokens per busy VU to the very backlog being measured (lib/tokens.ts).
// Calls to POST /tokens itself carry no token, so nothing turns over under them.
const FRESH_FOR_S = cfg.rateProfile === 'steady' || cfg.rateLimitEndpoint === 'tokens.issue' ? 0 : 2 * spikeS + STEP_S;

// A VU is held for as long as its call keeps waiting out 429s; beyond maxVUs, k6 drops iterations
// (dropped_iterations in the report) rather than exceed the rate.
// A policy whose concurrency holds its waits (CES_MAX_CALLS) gets exactly that many: against a limit
// that counts refused requests, more calls retrying beside new ones would keep it shut.
const maxVUs = cfg.maxCalls ?? Math.max(cfg.vus, Math.min(300, Math.ceil(cfg.rate * 3)));
// Starting VUs mid-run is slow enough to drop iterations in a short spike, and a call told
// "Retry-After: 1" holds its VU for over a second: allocate about two seconds' worth up front.
const preAllocatedVUs = cfg.maxCalls ?? Math.max(cfg.vus, Math.min(maxVUs, Math.ceil(cfg.rate * 2)));

// Calls still retrying when the arrivals stop get their whole budget to finish.
const gracefulStop = secs(cfg.retryBudgetS + 5);

const executor: Scenario =
  cfg.rateProfile === 'steady'
    ? {
        executor: 'constant-arrival-rate',
        rate: Math.round(cfg.rate * 1000),
        // Per 1000 s, so fractional rates (0.5/s) stay exact: k6 wants a whole number of iterations.
        timeUnit: '1000s',
        duration: secs(cfg.durationS),
        preAllocatedVUs,
        maxVUs,
        gracefulStop,
      }
    : {
        executor: 'ramping-arrival-rate',
        startRate: Math.round(cfg.rate * 1000),
        timeUnit: '1000s',
        stages: [
          { target: Math.round(cfg.rate * 1000), duration: secs(spikeS) },
          { target: Math.round(cfg.rate * AFTER_SPIKE_SHARE * 1000), duration: secs(STEP_S) },
          { target: Math.round(cfg.rate * AFTER_SPIKE_SHARE * 1000), duration: secs(cfg.durationS - spikeS - STEP_S) },
        ],
        preAllocatedVUs,
        maxVUs,
        gracefulStop,
      };

export const options = scenarioOptions(
  cfg,
  { over_limit: executor },
  {
    logical_calls_lost: ['count==0'],
    token_refused_before_expiry: ['count==0'],
    server_errors: ['count==0'],
    http_req_failed: ['rate<0.01'],
    checks: ['rate>0.99'],
    ...(cfg.cut
      ? {
          proof_refusals_past_cut: [{ threshold: `count<${cfg.cut.minRefusals}`, abortOnFail: true }],
          proof_dropped_past_cut: [{ threshold: `value<=${cfg.cut.maxDropped}`, abortOnFail: true }],
        }
      : {}),
  },
  // setup()'s token waits out 429s like any call, its whole retry budget and each attempt's
  // timeout: a proof round may begin on a limit the round before spent (a window before its edge).
  // Plus the wait for a fresh token before a spike, and the second fetch's own budget.
  {
    setupTimeout: secs(
      Math.max(30, FRESH_FOR_S + 1 + 2 * (cfg.retryBudgetS + (cfg.backoff.maxRetries + 1) * cfg.requestTimeoutS)),
    ),
  },
);

const cache = new TokenCache(cfg);

const send = (token: string, opts: CallOptions = {}): Res => callRateLimitEndpoint(cfg, token, opts);

// The proof's client is paced at CES_RATE over every call it makes, its token's among them: its
// first paced call comes one interval after that POST /tokens, as a client paced over all its calls
// would send it. Without the pause, a limit on the whole host that admits one request per interval
// (nginx's `limit_req` without a burst: a bucket of one) refused the first call of every round, and
// a short round at any rate broke the promise on that alone (5r/s: six rounds from 2.9 down to
// 0.3 req/s each 11-33 % refused from their start, "not proven", exit 1). At most PAUSE_CAP_S.
const PAUSE_CAP_S = 10;

export function setup(): SharedToken {
  const shared = shareToken(cfg, FRESH_FOR_S);
  if (cfg.rateProfile === 'steady') sleep(Math.min(PAUSE_CAP_S, 1 / cfg.rate));
  return shared;
}

export default function (shared: SharedToken): void {
  cache.seed(shared.token);
  const calledAt = Date.now();
  if (!beganNoted) {
    beganNoted = true;
    arrivalsBegan.add(calledAt);
  }
  arrivalsLast.add(calledAt);
  firstCall ??= { atMs: calledAt, iteration: exec.scenario.iterationInTest };
  if (cfg.cut !== undefined && firstRefusedMs !== undefined && pastCut(cfg.cut, firstRefusedMs, calledAt)) {
    const due = Math.floor(((calledAt - firstCall.atMs) / 1000) * cfg.rate);
    droppedPastCut.add(Math.max(0, due - (exec.scenario.iterationInTest - firstCall.iteration)));
  }
  // The token comes from the cache (fetched, with 429 retries, only once it has expired); a 401 at
  // the turn of a token is retried once with the next one.
  const made =
    cfg.rateLimitEndpoint === 'tokens.issue'
      ? { outcome: withRetry(cfg, () => send('')), costMs: 0 }
      : callWithToken(cfg, cache, (token, opts) => withRetry(cfg, () => send(token, opts)), { step: 'token' });
  if (made === undefined) {
    logicalCallsLost.add(1);
    callsOk.add(0);
    check(null, { 'A token is available for the rate-limited endpoint': () => false });
    return;
  }
  const outcome = made.outcome;
  if (outcome.attempts > 1 || outcome.exhausted) {
    refusedCallStart.add(calledAt - exec.scenario.startTime);
    refusedFrom.add(calledAt);
    firstRefusedMs ??= calledAt;
    if (cfg.cut !== undefined && pastCut(cfg.cut, firstRefusedMs, calledAt))
      refusalsPastCut.add(outcome.exhausted ? outcome.attempts : outcome.attempts - 1);
  }
  const status = outcome.res.status;
  serverErrors.add(status >= 500 ? 1 : 0);
  // The token endpoints answer 2xx; a business endpoint may refuse the payload after passing the limit.
  const ok = settle(outcome, cfg.rateLimitEndpoint.startsWith('business.') ? businessAnswered : undefined);
  callsOk.add(ok ? 1 : 0);
  if (ok && firstRefusedMs !== undefined && !admittedAgainNoted) {
    admittedAgainNoted = true;
    admittedAgain.add(Date.now());
  }
  judged.status = status;
  judged.ok = ok;
  check(judged, CALL_CHECKS);
}

/**
 * Each call's checks, made once, and what they judge, set on one object per VU before each: k6's
 * interpreter pays for every object and closure a call builds (throughput.ts CALL_CHECKS).
 */
const judged = { status: 0, ok: false };
const CALL_CHECKS = {
  'Overload is answered with 429, never 5xx (§7, §8)': (j: typeof judged) => j.status < 500,
  'The logical call succeeds within the retry budget (§7: wait and retry)': (j: typeof judged) => j.ok,
};

/**
 * Whether a call at `calledAt` comes late enough after this VU's first refused call to count toward
 * the cut: `atOnceAfterS` after it when refusals came from the start, else `afterRefusalsS`.
 */
function pastCut(cut: NonNullable<typeof cfg.cut>, firstRefusedAt: number, calledAt: number): boolean {
  const atOnce = firstRefusedAt - exec.scenario.startTime < cut.atOnceWithinS * 1000;
  return calledAt - firstRefusedAt >= (atOnce ? cut.atOnceAfterS : cut.afterRefusalsS) * 1000;
}

export const handleSummary = summaryHandler('rate-limit', cfg, {
  extra: (data) => {
    const began = data.metrics['arrivals_began_ms']?.values['min'];
    const refused = data.metrics['first_refused_call_ms']?.values['min'];
    const last = data.metrics['arrivals_last_ms']?.values['max'];
    const again = data.metrics['admitted_again_ms']?.values['min'];
    // From the first arrival when both are known; else from the scenario's start, a few tenths early.
    const first =
      typeof began === 'number' && typeof refused === 'number'
        ? refused - began
        : data.metrics['refused_call_start']?.values['min'];
    return {
      ...tokenTurnoverFigures(data),
      ...(typeof first === 'number' ? { refusals_began_s: Math.round(first) / 1000 } : {}),
      ...(typeof began === 'number' ? { arrivals_began_ms: began } : {}),
      ...(typeof began === 'number' && typeof again === 'number'
        ? { admitted_again_s: Math.round(again - began) / 1000 }
        : {}),
      // From the first arrival to the last: a run cut short has its figures over this, not its duration.
      ...(typeof began === 'number' && typeof last === 'number' ? { arrivals_s: (last - began) / 1000 } : {}),
    };
  },
  notes: [
    `endpoint ${cfg.rateLimitEndpoint}, ` +
      (cfg.rateProfile === 'steady'
        ? `${cfg.rate}/s for ${secs(cfg.durationS)}`
        : `${cfg.rate}/s for ${secs(spikeS)}, then ${cfg.rate * AFTER_SPIKE_SHARE}/s`) +
      `; backoff ${cfg.backoff.baseMs}–${cfg.backoff.capMs} ms full jitter, ≤ ${cfg.backoff.maxRetries} retries; retry budget ${cfg.retryBudgetS} s`,
  ],
});
