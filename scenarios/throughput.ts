// Business-call throughput and the latency cost of token handling (§5.5):
// - cached: constant arrival rate on /v1/evaluation and /v1/ach_transactions (payloads from
//   CES_BUSINESS_JSON), the token cached per VU until its expires_at (a 401 at its turn gets the
//   next token and one more try; a 401 certainly before expires_at fails the run);
// - token_per_call: the same calls, but a POST /tokens before every one (what §5.5 allows "at the
//   cost of latency").
// The two run one after the other, each for half of CES_DURATION_S at CES_RATE, so they do not
// compete. logical_call_duration_<mode> is what one business call costs a client in that mode
// (token fetch included); the summary adds the difference of their medians.

import { check } from 'k6';
import http from 'k6/http';
import { BUSINESS_ENDPOINTS, type BusinessEndpoint } from '../src/spec/endpoints.js';
import { EXPECTED_STATUSES, businessAnswered } from './lib/business-answer';
import { readConfig } from './lib/config';
import { callBusiness } from './lib/endpoints';
import { tally, timeTrend } from './lib/metrics';
import { scenarioOptions, secs, withinRequestTimeout } from './lib/options';
import { logicalCallsLost, settle, withRetry, type Outcome } from './lib/retry';
import { summaryHandler, type SummaryData } from './lib/summary';
import type { CallOptions } from './lib/endpoints';
import {
  TokenCache,
  WITH_TOKEN,
  callWithToken,
  issueToken,
  judgeRefusal,
  shareToken,
  tokenTurnoverFigures,
  type SharedToken,
} from './lib/tokens';

const cfg = readConfig();

http.setResponseCallback(http.expectedStatuses(...EXPECTED_STATUSES));

const MODES = ['cached', 'token_per_call'] as const;
type Mode = (typeof MODES)[number];

const callDuration: Record<Mode, ReturnType<typeof timeTrend>> = {
  cached: timeTrend('logical_call_duration_cached'),
  token_per_call: timeTrend('logical_call_duration_token_per_call'),
};
const tokenFetches = tally('token_fetches');

const half = cfg.durationS / 2;
// Little's law: iterations in flight ≈ rate × how long one takes. One makes a call per business
// endpoint (a token fetch too, per call, in token_per_call), each up to the request timeout, and
// may wait out 429s meanwhile: sized for answers that take the whole timeout, bounded at 200 (VUs
// beyond the pre-allocated ones start only when needed, so quick services never pay for them).
const maxVUs = Math.max(
  cfg.vus,
  Math.min(200, Math.ceil(cfg.rate * BUSINESS_ENDPOINTS.length * 2 * cfg.requestTimeoutS)),
);

const withinTimeout = withinRequestTimeout(cfg);

export const options = scenarioOptions(
  cfg,
  {
    cached: {
      executor: 'constant-arrival-rate',
      exec: 'cached',
      rate: Math.round(cfg.rate * 1000),
      timeUnit: '1000s',
      duration: secs(half),
      preAllocatedVUs: cfg.vus,
      maxVUs,
      gracefulStop: secs(cfg.retryBudgetS + 5),
      tags: { mode: 'cached' },
    },
    token_per_call: {
      executor: 'constant-arrival-rate',
      exec: 'tokenPerCall',
      rate: Math.round(cfg.rate * 1000),
      timeUnit: '1000s',
      duration: secs(half),
      startTime: secs(half),
      preAllocatedVUs: cfg.vus,
      maxVUs,
      gracefulStop: secs(cfg.retryBudgetS + 5),
      tags: { mode: 'token_per_call' },
    },
  },
  {
    logical_calls_lost: ['count==0'],
    token_refused_before_expiry: ['count==0'],
    checks: ['rate>0.99'],
    http_req_failed: ['rate<0.01'],
    // The spec sets no latency: the run's request timeout bounds it (withinRequestTimeout).
    http_req_duration: [withinTimeout],
    // Listed so the summary carries the per-mode figures (k6 only summarises submetrics that
    // have thresholds).
    'http_req_duration{mode:cached}': [withinTimeout],
    'http_req_duration{mode:token_per_call}': [withinTimeout],
  },
);

// Per VU, as a real client process would hold it.
const cache = new TokenCache(cfg);

type TokenCall = (token: string, opts: CallOptions) => Outcome;
type CallChecks = {
  available: Record<string, (made: unknown) => boolean>;
  accepted: Record<string, (ok: boolean) => boolean>;
};

/**
 * Each call's two checks, made once per VU: k6's interpreter pays for every object, closure and
 * template a call builds, and a check built afresh each call cost the bench's scenario-shaped
 * health_check some 5 % more CPU a request (docs/development.md). The same names as ever.
 */
const CALL_CHECKS = {} as Record<Mode, Record<BusinessEndpoint, CallChecks>>;
for (const mode of MODES) {
  const byEndpoint = {} as Record<BusinessEndpoint, CallChecks>;
  for (const which of BUSINESS_ENDPOINTS) {
    const fresh = mode === 'cached' ? 'cached' : 'fresh';
    byEndpoint[which] = {
      available: { [`A token is available for ${which} (${mode})`]: (made) => made !== undefined },
      accepted: {
        [`${cfg.business[which].method} /v1/${which} with a ${fresh} token is accepted (2xx, or a 4xx about the payload) (§4.4)`]:
          (ok) => ok,
      },
    };
  }
  CALL_CHECKS[mode] = byEndpoint;
}

function businessCalls(
  mode: Mode,
  callWith: (call: TokenCall) => { outcome: Outcome; costMs: number } | undefined,
): void {
  for (const which of BUSINESS_ENDPOINTS) {
    const made = callWith((token, opts) => withRetry(cfg, () => callBusiness(cfg, which, token, opts)));
    const checks = CALL_CHECKS[mode][which];
    if (!check(made, checks.available) || made === undefined) {
      // No token, no call: the logical call is lost as surely as a 5xx.
      logicalCallsLost.add(1);
      continue;
    }
    check(settle(made.outcome, businessAnswered), checks.accepted);
    callDuration[mode].add(made.costMs + made.outcome.costMs);
  }
}

export function setup(): SharedToken {
  return shareToken(cfg);
}

export function cached(shared: SharedToken): void {
  cache.seed(shared.token);
  businessCalls('cached', (call) => {
    const before = cache.fetches;
    const made = callWithToken(cfg, cache, call);
    tokenFetches.add(cache.fetches - before);
    return made;
  });
}

export function tokenPerCall(): void {
  businessCalls('token_per_call', (call) => {
    // A token fetched just before its expires_at can expire on the way (the service returns the
    // same token until then, §3): a 401 gets one more token and one more try, as for the cache.
    let costMs = 0;
    for (let attempt = 0; ; attempt++) {
      const { outcome: issued, token } = issueToken(cfg);
      tokenFetches.add(1);
      if (token === undefined) return undefined;
      costMs += issued.costMs;
      const outcome = call(token.value, WITH_TOKEN);
      if (!judgeRefusal(cfg, token, outcome) || attempt > 0) return { outcome, costMs };
    }
  });
}

const med = (data: SummaryData, name: string): number | undefined => data.metrics[name]?.values.med;

export const handleSummary = summaryHandler('throughput', cfg, {
  extra: (data): Record<string, number> => {
    const c = med(data, 'logical_call_duration_cached');
    const p = med(data, 'logical_call_duration_token_per_call');
    const cost: Record<string, number> =
      c === undefined || p === undefined ? {} : { token_per_call_cost_p50_ms: Math.round((p - c) * 100) / 100 };
    return { ...cost, ...tokenTurnoverFigures(data) };
  },
});
