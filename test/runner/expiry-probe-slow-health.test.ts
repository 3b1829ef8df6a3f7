// The probe "still valid just before expires_at" comes after timed health checks that narrow the
// measured clock skew (token-session.ts refineSkew). Each was sent while 300 ms remained before the
// probe, whatever its own round trip: under CI's load a health answer taking 0.7 s then ran past the
// probe's moment, and `token.valid-until-expiry` was "not tested: … none [left] when the probe's
// turn came" (CI 48e, 48f, 48h, three profile and cutover runs). On an injected clock, a service
// whose health check answers in 700 ms, and an 8 s token taken up with a few seconds left.

import { describe, expect, it } from 'vitest';
import type { Exchange, TokenExchange } from '../../src/http/exchange.js';
import type { ServiceClient } from '../../src/http/service-client.js';
import { TokenSession } from '../../src/runner/token-session.js';
import { measureSkew, type ClockReading } from '../../src/time/clock-skew.js';

const LIFETIME_S = 8;

/** The service's clock is ours; every answer takes `latencyMs`, the health check `healthMs`. */
function fakeService(clock: { t: number }, healthMs: number, latencyMs = 5) {
  const readings: ClockReading[] = [];
  let expiresAtS = 0;
  const answer = (request: string, status: number, text: string, sentAt: number): Exchange => ({
    request,
    status,
    headers: {},
    text,
    json: undefined,
    truncated: false,
    durationMs: clock.t - sentAt,
    sentAt,
    receivedAt: clock.t,
    rateLimitWaits: 0,
    echoesSecret: false,
  });
  const http = {
    limitQueued: false,
    noteClock: (r: ClockReading) => readings.push(r),
    measuredSkew: () => measureSkew(readings),
    quote: () => '',
    quoteField: () => '',
    async issueToken(): Promise<TokenExchange> {
      const sentAt = clock.t;
      clock.t += latencyMs;
      expiresAtS = Math.floor((sentAt + latencyMs / 2) / 1000) + LIFETIME_S;
      return {
        ...answer('POST /tokens', 200, '', sentAt),
        issued: { token: 'tk_test', fingerprint: 'tk_test…', expiresAt: expiresAtS, tokenType: 'Bearer' },
      };
    },
    async validate(): Promise<Exchange> {
      const sentAt = clock.t;
      const judgedS = (sentAt + latencyMs / 2) / 1000;
      clock.t += latencyMs;
      return answer('GET /tokens/validate', judgedS < expiresAtS ? 200 : 401, '', sentAt);
    },
    async healthCheck(): Promise<Exchange> {
      const sentAt = clock.t;
      const stamp = new Date(sentAt + healthMs / 2).toISOString().replace('T', ' ').slice(0, 19);
      clock.t += healthMs;
      return answer(
        'POST /tokens/health_check',
        200,
        `Credit Evaluation Service is alive. Timestamp: ${stamp} UTC`,
        sentAt,
      );
    },
    async business(): Promise<Exchange> {
      const sentAt = clock.t;
      clock.t += latencyMs;
      return answer('POST /evaluation', 401, '', sentAt);
    },
  };
  return http as unknown as ServiceClient;
}

describe('the probe before expires_at, behind slow health checks', () => {
  it.each([0.1, 0.35, 0.6, 0.85])(
    'a 700 ms health check, the token taken up 5.5 s after issue at %s of a second: the probe is still sent, and passes',
    async (phase) => {
      const clock = { t: 1_796_500_000_000 + phase * 1000 };
      const session = new TokenSession({
        http: fakeService(clock, 700),
        expect: { tokenLifetimeS: LIFETIME_S, expiryWaitS: LIFETIME_S + 4, clockToleranceS: 1 },
        business: { method: 'POST', body: {} },
        now: () => clock.t,
        sleep: async (ms) => {
          clock.t += ms;
        },
        progress: () => undefined,
      });
      await session.current();
      clock.t += 5500; // the other checks
      const seen = await session.expiry();
      expect(seen.kind).toBe('observed');
      if (seen.kind !== 'observed') return;
      expect(seen.tooLate, JSON.stringify(seen.tooLate)).toBeUndefined();
      expect(seen.beforeExpiry?.status).toBe(200);
      expect(seen.afterValidate.status).toBe(401);
    },
  );
});
