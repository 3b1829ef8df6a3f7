// Token lifecycle under concurrency (§3, §4.1, §4.3, §7):
// - same_token: many VUs fetch tokens at once and again and again; before expiry every answer
//   must carry the same token. Each VU compares fingerprints with the token it holds (first the
//   one setup() fetched, so VUs are also compared with each other); a change on a call made
//   certainly before the held token's expires_at (src/time/expiry-edges.ts) counts in
//   token_changed_before_expiry, which must stay 0.
// - bad_credentials: a wrong secret and an unknown client id get 401 {"error":"unauthorized"}.
// - expiry (only when CES_TOKEN_LIFETIME_S <= CES_DURATION_S): one VU holds a token past
//   the moment it has certainly expired; /tokens/validate must then say 401 and POST /tokens give a
//   new token.

import { check, sleep } from 'k6';
import http from 'k6/http';
import type { Scenario } from 'k6/options';
import { UNAUTHORIZED } from '../src/spec/error-body.js';
import { readConfig } from './lib/config';
import { isErrorBody, jsonBody, postTokens, validateToken } from './lib/endpoints';
import { counter } from './lib/metrics';
import { scenarioOptions, secs, withinRequestTimeout } from './lib/options';
import { settle, withRetry, type Outcome } from './lib/retry';
import { summaryHandler } from './lib/summary';
import { certainlyExpiredFromMs, positionOf, refusalIsEarly } from '../src/time/expiry-edges';
import { WITH_TOKEN, credentialsOf, edgeAllowanceOf, issueToken, parseToken } from './lib/tokens';
import { isJsonObject } from '../src/spec/json-object.js';

const cfg = readConfig();

// 429 is an answer with a documented client action (wait and retry, done by withRetry), not a
// failed request; 401s are expected only where a call says so.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 399 }, 429));

const tokenChangedBeforeExpiry = counter('token_changed_before_expiry');
const tokenRenewals = counter('token_renewals_after_expiry');

const exerciseExpiry = cfg.tokenLifetimeS <= cfg.durationS;
const notes = exerciseExpiry
  ? []
  : [
      `expiry not exercised: token lifetime ${cfg.tokenLifetimeS} s exceeds the run's ${cfg.durationS} s (CES_DURATION_S)`,
    ];

const scenarios: Record<string, Scenario> = {
  same_token: {
    executor: 'constant-vus',
    exec: 'sameToken',
    vus: cfg.vus,
    duration: secs(cfg.durationS),
    gracefulStop: secs(cfg.retryBudgetS + 5),
  },
  bad_credentials: {
    executor: 'per-vu-iterations',
    exec: 'badCredentials',
    vus: 1,
    iterations: 2,
    maxDuration: secs(cfg.durationS + cfg.retryBudgetS + 10),
  },
};
if (exerciseExpiry) {
  scenarios.expiry = {
    executor: 'per-vu-iterations',
    exec: 'expiry',
    vus: 1,
    iterations: 1,
    // The one iteration sleeps through the token's whole life; it may outlast the other scenarios.
    maxDuration: secs(cfg.tokenLifetimeS + 2 * cfg.clockToleranceS + 2 * cfg.retryBudgetS + 17),
  };
}

export const options = scenarioOptions(cfg, scenarios, {
  token_changed_before_expiry: ['count==0'],
  logical_calls_lost: ['count==0'],
  checks: ['rate>0.99'],
  // Few calls, each one a rule of the spec: a single failure is a failure.
  'checks{scenario:bad_credentials}': ['rate==1'],
  ...(exerciseExpiry ? { 'checks{scenario:expiry}': ['rate==1'] } : {}),
  http_req_failed: ['rate<0.01'],
  // The spec sets no latency: the run's request timeout bounds it (withinRequestTimeout).
  http_req_duration: [withinRequestTimeout(cfg)],
});

interface Reference {
  fingerprint: string;
  expiresAt: number;
}

/**
 * One token for all VUs to compare with. Only its fingerprint leaves setup (setup data is exported).
 * None when the limit still refused it past the retry budget (spent by what ran before, a
 * Retry-After longer than the budget): a call lost to the limit like any VU's, never a crash that
 * fails a conformant service; each VU then compares from the first token it gets.
 */
export function setup(): Reference | undefined {
  const { outcome, token } = issueToken(cfg, { step: 'setup' });
  if (token !== undefined) return { fingerprint: token.fingerprint, expiresAt: token.expiresAt };
  if (keptOutByTheLimit(outcome)) return undefined;
  throw new Error(
    'POST /tokens with the configured credentials did not return a token (§4.1); see the conformance checks',
  );
}

// Per VU: the token this VU believes is current.
let held: Reference | undefined;

export function sameToken(ref: Reference | undefined): void {
  if (ref !== undefined) held ??= { ...ref };
  const outcome = withRetry(cfg, () => postTokens(cfg, credentialsOf(cfg)));
  settle(outcome);
  const token = parseToken(outcome.res);
  check(token, {
    'POST /tokens with valid credentials returns 200 {token, expires_at, token_type: "Bearer"} (§4.1)': (t) =>
      t !== undefined,
  });
  if (token !== undefined) {
    let early = false;
    if (held !== undefined && token.fingerprint !== held.fingerprint) {
      // A change is fine once the held token may have expired, never while this call was certainly before that.
      early = positionOf(outcome, held.expiresAt, edgeAllowanceOf(cfg)) === 'certainly-before';
      (early ? tokenChangedBeforeExpiry : tokenRenewals).add(1);
    }
    tokenChangedBeforeExpiry.add(0);
    check(token, { 'Repeated POST /tokens before expiry returns the same token (§3, §4.1 rule 1)': () => !early });
    held = { fingerprint: token.fingerprint, expiresAt: token.expiresAt };
  }
  // Jittered pacing: concurrent, repeated calls without turning this into a rate-limit test.
  sleep(0.1 + Math.random() * 0.2);
}

/**
 * Settles the call (settle: lost unless its answer is `ok`); true when it was lost to the rate limit
 * alone, still refused past the retry budget (a Retry-After longer than it): there is no answer to
 * judge, and a check on it would fail a conformant service (a sandbox limited to 20 per 10 s did).
 */
function keptOutByTheLimit(outcome: Outcome, ok?: (status: number) => boolean): boolean {
  return !settle(outcome, ok) && outcome.res.status === 429;
}

export function badCredentials(): void {
  // First a wrong secret for the real client, then a client id nobody was given.
  const creds =
    __ITER % 2 === 0
      ? { clientId: cfg.clientId, clientSecret: `${cfg.clientSecret}-not-the-secret` }
      : { clientId: `ces-harness-unknown-${Date.now()}`, clientSecret: 'not-a-secret' };
  const what = __ITER % 2 === 0 ? 'a wrong client_secret' : 'an unknown client_id';
  // A 429 is any call's answer under a limit (§7: wait and retry): expected, waited out, never a failed request.
  const outcome = withRetry(cfg, () => postTokens(cfg, creds, { expect: [401, 429] }));
  // Still refused past the retry budget (a Retry-After longer than it): a call lost to the limit,
  // counted so by settle, with no answer to judge (a conformant sandbox limited to 20 per 10 s FAILed on it).
  if (keptOutByTheLimit(outcome, (s) => s === 401)) return;
  check(outcome.res, {
    [`POST /tokens with ${what} returns 401 (§4.1 rule 2, §7)`]: (r) => r.status === 401,
    [`The 401 for ${what} has the body {"error":"unauthorized"} (§7)`]: (r) => isErrorBody(r, UNAUTHORIZED),
  });
  sleep(0.2);
}

export function expiry(): void {
  const { outcome, token } = issueToken(cfg, { step: 'expiry' });
  if (keptOutByTheLimit(outcome)) return;
  if (
    !check(token, { 'POST /tokens returns a token to hold until it expires (§4.1)': (t) => t !== undefined }) ||
    token === undefined
  )
    return;

  const fresh = withRetry(cfg, () => validateToken(cfg, token.value, WITH_TOKEN));
  // Waiting out 429s can outlast a short-lived token: a 401 that may be its expiry is no fresh token
  // refused, and there is nothing left of this token's life to test; the next iteration starts anew.
  if (fresh.res.status === 401 && !refusalIsEarly(fresh, token.expiresAt, edgeAllowanceOf(cfg))) {
    settle(fresh, (s) => s === 401);
    return;
  }
  if (keptOutByTheLimit(fresh)) return;
  check(fresh.res, {
    '/tokens/validate with a fresh token returns 200 {valid: true, message} (§4.3)': (r) => {
      const body = jsonBody(r);
      return r.status === 200 && isJsonObject(body) && body.valid === true && typeof body.message === 'string';
    },
  });

  // Never sleep longer than the promised lifetime allows: an expires_at far beyond it is a finding
  // for the conformance checks, not a reason to hang this VU.
  const waitS = (certainlyExpiredFromMs(token.expiresAt, edgeAllowanceOf(cfg)) - Date.now()) / 1000;
  const promisedS = cfg.tokenLifetimeS + 2 * cfg.clockToleranceS + 2;
  if (
    !check(waitS, {
      [`expires_at is within the promised ${cfg.tokenLifetimeS} s lifetime (§5.4)`]: (w) => w <= promisedS,
    })
  )
    return;
  // Until the token has certainly expired (expires_at's rounding and the clock tolerance), and a little more.
  sleep(Math.max(0, waitS) + 0.25);

  const stale = withRetry(cfg, () => validateToken(cfg, token.value, { expect: [401, 429] }));
  if (keptOutByTheLimit(stale, (s) => s === 401)) return;
  check(stale.res, {
    '/tokens/validate with a token past expires_at returns 401 (§3, §4.3)': (r) => r.status === 401,
    'The 401 for an expired token has the body {"error":"unauthorized"} (§7)': (r) => isErrorBody(r, UNAUTHORIZED),
  });

  const next = issueToken(cfg, { step: 'expiry' });
  if (keptOutByTheLimit(next.outcome)) return;
  check(next.token, {
    'POST /tokens after expiry returns a new token (§3)': (t) => t !== undefined && t.fingerprint !== token.fingerprint,
  });
}

export const handleSummary = summaryHandler('token-lifecycle', cfg, { notes });
