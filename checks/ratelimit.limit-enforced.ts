import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { QUIET_BEFORE_BURST_MS, limitBurst } from '../src/runner/limit-burst.js';
import { MAX_IN_FLIGHT, MIN_REACH_SHARE, reachableRps } from '../src/ratelimit/in-flight.js';

export const check: Check = {
  id: 'ratelimit.limit-enforced',
  title: 'A burst over the rate limit is answered with 429',
  spec: '7, 8',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'Sends a paced burst to `rate_limit.endpoint` (never above `max_rps` nor past `max_requests`) until the service limits it, and wants that answer to be 429 (§7), not 503 or another status. No limit met within those bounds is not tested (exit 1), not a failure: a limit above the ceiling looks like none; so is a burst whose requests mostly got no valid answer (timeouts, bodies past the body cap). Runs last and alone, after a second without requests from the run (its earlier requests count against the same limit); against production only with --allow-production-load.',
  phase: 'last',
  async run(ctx) {
    const burst = await limitBurst(ctx);
    if (burst.skipped) return skip(burst.skipped);
    const spread = Object.entries(burst.statuses)
      .map(([s, n]) => `${s === '0' ? 'network error' : s} ×${n}`)
      .join(', ');
    const summary = `${burst.sent} requests at ≤${burst.rps}/s in ${burst.durationS.toFixed(1)} s (${spread})`;
    const limited = burst.limited;
    // Mostly no valid answer (timeouts, bodies cut at the cap): neither a limit nor its absence was seen.
    const unanswered = burst.statuses[0] ?? 0;
    if (!limited && unanswered * 2 > burst.sent)
      return notTested(
        `${unanswered} of ${burst.sent} burst requests got no valid answer (last: ${(burst.lastError ?? '').slice(0, 200)}); no verdict on §8`,
      );
    // A line, not a limit's absence: the pace it kept is what a client meets (ratelimit sizes it).
    if (!limited && burst.queuedPace) {
      const q = burst.queuedPace;
      return notTested(
        `no 429 met, but the service answered no faster than ${q.servedRps.toFixed(0)} requests/s, each answer later than the one before (the first ${(q.firstMs / 1000).toFixed(2)} s, the last ${(q.lastMs / 1000).toFixed(1)} s): a limit that delays instead of refusing, the service's own pace, or this machine's; \`ces-harness ratelimit\` sizes a client below it (${summary}); no verdict on §8`,
      );
    }
    if (!limited) {
      const achieved = burst.achievedRps;
      if (achieved < burst.rps * MIN_REACH_SHARE) {
        // The harness, not the service, was the bottleneck: the absence of a 429 proves little.
        const why = burst.inFlightBound
          ? `: answers took about ${(burst.latencyMs / 1000).toFixed(1)} s, and at most ${MAX_IN_FLIGHT} requests in flight reach about ${reachableRps(MAX_IN_FLIGHT, burst.latencyMs).toFixed(0)}/s`
          : '';
        return notTested(
          `no limit met, but the probe reached only ${achieved.toFixed(0)} requests/s of the ${burst.rps}/s it aimed for${why} (${summary}); no verdict on §8`,
        );
      }
      // §8 says a limit exists, not where: one above the probe's ceiling looks exactly like none,
      // so this is what the harness could not find, never the service's failure.
      return notTested(
        `no limit met at ≤ ${achieved.toFixed(0)} requests/s (${summary}); if the service's limit is higher, raise rate_limit.max_rps (--max-rps) or rate_limit.max_requests`,
      );
    }
    const evidence = [ctx.http.evidence(limited, `after ${burst.sent} requests`)];
    if (limited.status !== 429) {
      return fail(
        `the service limited the burst with ${limited.status} ${ctx.http.quote(limited, 80)}, not 429: ${summary}; §7 wants 429 for a rate limit`,
        evidence,
      );
    }
    // For the run history: how many of the requests sent before the first refused one got through
    // (a halved limit halves it), and the rate they were sent at, which the machine sets and the
    // count depends on (a limit that refills admits more of a slower burst): runs are compared only
    // at like rates. Neither counts what came after the first refusal: answers still in flight, a
    // burst whose end a loaded machine stalled.
    const before = burst.beforeLimit;
    return {
      ...pass(`429 after ${summary}`, evidence),
      ...(before
        ? {
            facts: {
              accepted_before_limit: before.accepted,
              offered_rps: Number(before.offeredRps.toFixed(1)),
              // How it was measured: the burst began after this much quiet (the history compares
              // the count only with runs measured so, limit-burst.ts says why).
              quiet_before_s: QUIET_BEFORE_BURST_MS / 1000,
            },
          }
        : {}),
    };
  },
};
