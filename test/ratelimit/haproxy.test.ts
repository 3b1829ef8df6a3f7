// Real ground truth for sliding windows: HAProxy's stick-table `http_req_rate(<period>)` per
// client address, in front of the emulator (its own limiter off), in the two recipes found in the
// wild (test/helpers/haproxy.ts). Short periods (half a second) keep each probe brief; the
// accuracy table at more settings is the bench's (`npm run bench -- ratelimit`).
//
// Without haproxy: skipped with the reason on a developer machine, a failure on CI (CI=true),
// where .ci/run installs it.

import { describe, expect, it } from 'vitest';
import { haproxyMissing, startHaproxy, type SlidingLimit } from '../helpers/haproxy.js';
import { limitedUpstream } from '../helpers/limited-upstream.js';
import { describeEstimate, pastStatedPrecision, probe, relativeError } from './support.js';

const missing = haproxyMissing();
const onCi = Boolean(process.env.CI);
const skipWhy = missing !== undefined && !onCi ? missing : undefined;
if (skipWhy) console.warn(`skipping the HAProxy rate-limit tests: ${skipWhy}`);

describe.skipIf(skipWhy !== undefined)(
  `limiter identification behind HAProxy${skipWhy ? ` (skipped: ${skipWhy})` : ''}`,
  () => {
    // On CI a missing real limiter fails every test here with the reason, never a silent pass.
    const upstream = limitedUpstream(
      'haproxy',
      missing,
      'haproxy is required on CI for the sliding-window ground truth',
    );

    async function behindHaproxy(limit: SlidingLimit) {
      const haproxy = await startHaproxy({ upstream: upstream.emulator.url, tlsDir: upstream.tlsDir, limit });
      try {
        return await probe(
          { url: haproxy.url, caPem: upstream.emulator.caPem, credentials: upstream.emulator.credentials },
          { maxRps: 200, maxDurationS: 60 },
        );
      } finally {
        await haproxy.stop();
      }
    }

    it.each([
      { recipe: 'admitted' as const, countsRefused: false },
      { recipe: 'every' as const, countsRefused: true },
    ])(
      'reads http_req_rate(500ms) 40 with the $recipe recipe: a sliding window, refused requests counted: $countsRefused, within 2 %',
      async ({ recipe, countsRefused }) => {
        const { estimate, seconds } = await behindHaproxy({ limit: 40, periodMs: 500, recipe });
        const context = describeEstimate(estimate);
        expect(estimate.limiter?.kind, context).toBe('sliding-window');
        if (estimate.limiter?.kind === 'sliding-window') {
          expect(estimate.limiter.limit, context).toBe(40);
          expect(estimate.limiter.counts_refused, context).toBe(countsRefused);
        }
        // A window has no refill to subtract: the burst is the limit.
        expect(estimate.burst, context).toBe(40);
        expect(relativeError(estimate.sustained_rps, 80), context).toBeLessThanOrEqual(0.02);
        // Ends by itself, politely (the old probe spent its whole budget on the second recipe).
        expect(estimate.partial, context).toBe(false);
        expect(estimate.requests_limited / estimate.requests_sent, context).toBeLessThanOrEqual(0.1);
        expect(seconds, context).toBeLessThan(40);
      },
      90_000,
    );

    // HAProxy's usual recipe as its documentation writes it, at a small limit: the long window's
    // edge pings hold it shut past its edge, so it is sized from the whole trace (probe/counter-fit.ts).
    // Claimed near the long end of what its pings left, never fast; the precision it states reaches
    // the short end (crossings.ts claimPrecision): on a loaded machine 10.00–10.19 s was left, and
    // 4.92 req/s "±1.5 %" missed the true 5 (stress-ng at 75 % of both cores, 7 Dec). The truth
    // within what it states, at most 2 %.
    it('reads http_req_rate(10s) 50, every request tracked: a counter counting refused requests, the truth within its stated precision, at most 2 %, and not fast', async () => {
      const { estimate, seconds } = await behindHaproxy({ limit: 50, periodMs: 10_000, recipe: 'every' });
      const context = describeEstimate(estimate);
      // At some phases of its period against the probe's drain the window's next edge cannot be timed
      // (CI ci-60C, once in ten runs; virtually 1 of 21 leads within a second, 2 on a machine 5 ms
      // late: counter-fit-virtual.test.ts counts them): "not identified" with why, and a bracket the
      // stage's paced rounds search. Never another kind, never a figure.
      if (estimate.limiter === null) {
        expect(estimate.notes.join('\n'), context).toMatch(
          /^not identified: a window weighing the last one that counts refused requests, but /m,
        );
        expect(estimate.sustained_rps, context).toBeNull();
        expect(estimate.rate_bracket, context).toBeTruthy();
        console.info(`HAProxy 50 per 10 s, every request tracked: not identified at this phase: ${estimate.notes[0]}`);
        return;
      }
      expect(estimate.limiter, context).toMatchObject({ kind: 'sliding-counter', limit: 50, counts_refused: true });
      expect(estimate.sustained_precision, context).toBeLessThanOrEqual(0.02);
      const truth = { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: 0, counts_refused: true } as const;
      expect(pastStatedPrecision(estimate, truth), context).toBeUndefined();
      expect(estimate.sustained_rps, context).toBeLessThanOrEqual(5 * 1.005);
      expect(estimate.partial, context).toBe(false);
      expect(seconds, context).toBeLessThan(45);
    }, 90_000);
  },
);
