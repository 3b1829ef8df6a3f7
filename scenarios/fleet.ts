// A fleet of client instances against the real limit: the proof of the fleet simulator. Each
// instance is its own k6 scenario with one VU (a k6 VU is its own JavaScript runtime, so one VU is
// what can hold one instance's backoff state, client-side bucket and throttling counters), and it
// runs the very ClientInstance the simulator runs (src/ratelimit/fleet/instance.ts): its queue of
// logical calls, its policy, its seeded random stream; only the clock and the limiter are real.
// The run comes from CES_FLEET_JSON (a FleetRun); the endpoint is CES_RATE_LIMIT_ENDPOINT.
// Each instance counts what it did; the sums go to the summary as fleet_* figures for the Node
// side (src/ratelimit/fleet/k6-proof.ts) to compare with the simulation of the same run.
// Pass: no answer other than 2xx or 429 (anything else is outside what the simulation models).

import exec from 'k6/execution';
import http from 'k6/http';
import { sleep } from 'k6';
import type { Scenario } from 'k6/options';
import { ClientInstance } from '../src/ratelimit/fleet/instance.js';
import { parseFleetRun } from '../src/ratelimit/fleet/parse-run.js';
import { describePolicy } from '../src/ratelimit/fleet/policy.js';
import { instanceRandom, instanceSetup, type FleetRun } from '../src/ratelimit/fleet/run-setup.js';
import { SCENARIO_ENV } from '../src/k6/contract.js';
import { readConfig } from './lib/config';
import { callRateLimitEndpoint } from './lib/endpoints';
import { counter, gauge, timeTrend } from './lib/metrics';
import { scenarioOptions, secs } from './lib/options';
import { retryAfterMs } from './lib/retry';
import { summaryHandler, type SummaryData } from './lib/summary';
import { shareToken, type SharedToken } from './lib/tokens';

const cfg = readConfig();
// Without CES_FLEET_JSON (a bundle run by hand): CES_VUS instances with full jitter from the
// CES_BACKOFF_* figures, offering CES_RATE between them for CES_DURATION_S.
const run: FleetRun =
  cfg.fleet === undefined
    ? {
        instances: cfg.vus,
        policy: {
          name: 'full-jitter',
          base_ms: cfg.backoff.baseMs,
          cap_ms: cfg.backoff.capMs,
          max_retries: cfg.backoff.maxRetries,
          honour_retry_after: true,
        },
        offered_rps: cfg.rate,
        backlog: 0,
        duration_s: cfg.durationS,
        seed: 1,
      }
    : parseFleetRun(cfg.fleet, SCENARIO_ENV.fleet);

http.setResponseCallback(http.expectedStatuses({ min: 200, max: 299 }, 429));

const sent = counter('fleet_sent');
const refused = counter('fleet_refused');
const succeeded = counter('fleet_succeeded');
const lost = counter('fleet_lost');
const throttled = counter('fleet_throttled');
const unexpected = counter('fleet_unexpected_answers');
const callMs = timeTrend('fleet_call_ms');
// An attempt's time as the instance lives it, from just before the request to the answer in hand:
// the round trip plus k6's own work per request, which is what paces an instance working off a
// queue back to back (http_req_duration alone leaves k6's part out).
const attemptMs = timeTrend('fleet_attempt_ms');
// How late an instance wakes from a sleep, past the moment it meant to act: a busy machine's sleeps
// overrun, which moves every paced call and every retry; the simulation is given the mean.
const wakeLateMs = timeTrend('fleet_wake_late_ms');
// The wall-clock instant of the run's time 0: a limiter whose windows follow the wall clock (edges
// at whole seconds) meets the run at a phase the simulation must be given.
const originMs = gauge('fleet_origin_ms');
// When setup() fetched the token: a request the limiter counts before the run, which the
// simulation replays so both start on the same limiter.
const setupAtMs = gauge('fleet_setup_at_ms');

const PREFIX = 'instance_';
// Every instance acts from the fleet's time 0 (set by setup(), START_MARGIN_MS) and stops acting at
// duration_s; an answer in flight then still arrives, so the scenario's own limit leaves it the
// margin, a request timeout and more.
const scenarios: Record<string, Scenario> = {};
for (let i = 0; i < run.instances; i++) {
  scenarios[`${PREFIX}${i}`] = {
    executor: 'per-vu-iterations',
    vus: 1,
    iterations: 1,
    maxDuration: secs(run.duration_s + 15),
    exec: 'instance',
  };
}

export const options = scenarioOptions(cfg, scenarios, { fleet_unexpected_answers: ['count==0'] });

/**
 * How long after setup() the fleet's time 0 is. k6 starts the instances' scenarios one after
 * another, not at one instant: 16 of them spread over 2-10 ms on a quiet machine, 1-34 ms beside
 * stress-ng and once 129 ms, half an instance's interval at N = 16. An instance counting from its
 * own scenario's start acts that far out of step with the others, which the simulation (every
 * instance from 0) never does, and the 429 rate at N = 16 (about 27 refusals: 10 % is three) can
 * move with it. So every instance counts from one instant, far enough ahead that each has started
 * by then; one that has not acts late, as after a late wake. A run compared with its simulation
 * asks for more (FleetRun.start_margin_ms): long enough that the limiter has forgotten setup()'s request.
 */
const START_MARGIN_MS = run.start_margin_ms ?? 1000;

/** setup()'s token, and the fleet's time 0 (epoch ms) every instance counts from. */
interface FleetStart extends SharedToken {
  originMs: number;
}

export function setup(): FleetStart {
  const before = Date.now();
  const shared = shareToken(cfg);
  const after = Date.now();
  // Its midpoint: where the request met the limiter, within half a round trip.
  setupAtMs.add((before + after) / 2);
  return { ...shared, originMs: after + START_MARGIN_MS };
}

export function instance(shared: FleetStart): void {
  const index = Number(exec.scenario.name.slice(PREFIX.length));
  const random = instanceRandom(run, index);
  const client = new ClientInstance(instanceSetup(run, index, random), random);
  const token = shared.token?.value ?? '';
  // The simulator's time 0: the same instant for every instance (see START_MARGIN_MS).
  const origin = shared.originMs;
  const endMs = run.duration_s * 1000;
  const now = () => Date.now() - origin;
  originMs.add(origin);
  if (now() < 0) sleep(-now() / 1000);
  // Bounded: each round either sleeps until the instance's next attempt or sends one, and the
  // loop ends at duration_s (arrivals stop then too).
  for (;;) {
    const at = client.nextMs();
    if (at === null || at >= endMs) break;
    const wait = at - now();
    if (wait > 0) {
      sleep(wait / 1000);
      wakeLateMs.add(Math.max(0, now() - at));
    }
    const t = Math.max(now(), at);
    if (t >= endMs) break;
    if (!client.startAttempt(t)) continue;
    const sentAt = now();
    const res = callRateLimitEndpoint(cfg, token);
    attemptMs.add(now() - sentAt);
    if (res.status === 429) {
      const header = retryAfterMs(res);
      client.answer(now(), header === undefined ? { ok: false } : { ok: false, retryAfterS: header / 1000 });
    } else {
      // Anything but 2xx or 429 is outside the model: counted (the threshold fails the run) and
      // handled like a refusal without Retry-After, so the instance goes on.
      const ok = res.status >= 200 && res.status < 300;
      if (!ok) unexpected.add(1);
      client.answer(now(), ok ? { ok: true } : { ok: false });
    }
  }
  const tally = client.tally;
  sent.add(tally.sent);
  refused.add(tally.refused);
  succeeded.add(tally.succeeded);
  lost.add(tally.lost);
  throttled.add(tally.throttled);
  for (const ms of client.latencies) callMs.add(ms);
}

/** p99 of a logical call is the figure the sizing compares; the generic summary keeps p50 and p95 only. */
const fleetFigures = (data: SummaryData): Record<string, number> => ({
  'fleet_call_ms p99_ms': Math.round(data.metrics['fleet_call_ms']?.values['p(99)'] ?? 0),
  fleet_origin_ms: data.metrics['fleet_origin_ms']?.values['value'] ?? 0,
  fleet_setup_at_ms: data.metrics['fleet_setup_at_ms']?.values['value'] ?? 0,
  'fleet_attempt_ms avg_ms': data.metrics['fleet_attempt_ms']?.values['avg'] ?? 0,
  'fleet_wake_late_ms avg_ms': data.metrics['fleet_wake_late_ms']?.values['avg'] ?? 0,
});

export const handleSummary = summaryHandler('fleet', cfg, {
  extra: fleetFigures,
  notes: [
    `${run.instances} instances, ${describePolicy(run.policy)}; ${run.offered_rps} req/s offered for ${run.duration_s} s, endpoint ${cfg.rateLimitEndpoint}`,
  ],
});
