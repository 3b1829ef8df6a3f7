// Shared by the rate-limit tests and the benchmark: run the real probe against a real server on
// loopback, exactly as the `ratelimit` stage does, minus the terminal and the k6 proof.

import { sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Credentials } from '../../src/spec/credentials.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { probeCalls } from '../../src/ratelimit/calls.js';
import type { BusinessCalls, RateLimitEndpoint } from '../../src/spec/endpoints.js';
import { DISCOVER_DEFAULTS, discover, type DiscoverOptions } from '../../src/ratelimit/discover.js';
import type { Estimate, Sample } from '../../src/ratelimit/types.js';

export interface ProbeTarget {
  url: string;
  caPem: string;
  credentials: Credentials;
}

export interface ProbeRun {
  estimate: Estimate;
  samples: Sample[];
  seconds: number;
}

export const BUSINESS: BusinessCalls = {
  evaluation: { method: 'POST', body: {} },
  ach_transactions: { method: 'POST', body: {} },
};

export async function probe(
  target: ProbeTarget,
  options: Partial<Pick<DiscoverOptions, 'maxRps' | 'maxRequests' | 'maxDurationS' | 'signal'>> & {
    endpoint?: RateLimitEndpoint;
    secondClient?: Credentials;
  } = {},
): Promise<ProbeRun> {
  const http = new ServiceClient(
    { environment: 'sandbox', baseUrl: target.url, credentials: target.credentials, caPem: target.caPem },
    { redactor: new Redactor(), connections: DISCOVER_DEFAULTS.maxInFlight },
  );
  const started = performance.now();
  try {
    const calls = await probeCalls({
      http,
      endpoint: options.endpoint ?? 'tokens.validate',
      business: BUSINESS,
      ...(options.secondClient ? { secondClient: options.secondClient } : {}),
    });
    const samples: Sample[] = [];
    const estimate = await discover({
      calls,
      maxRps: options.maxRps ?? 200,
      maxRequests: options.maxRequests ?? 3_000,
      // Every test probe ends by itself well within vitest's per-test timeout.
      maxDurationS: options.maxDurationS ?? 40,
      record: samples,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { estimate, samples, seconds: (performance.now() - started) / 1000 };
  } finally {
    await http.close();
  }
}

/** The probe against a limiter started for it (nginx, HAProxy in front of `upstream`), stopped after it whatever happens. */
export async function probeBehind(
  start: () => Promise<{ url: string; stop(): Promise<void> }>,
  upstream: Pick<ProbeTarget, 'caPem' | 'credentials'>,
): Promise<ProbeRun> {
  const front = await start();
  return probe({ url: front.url, caPem: upstream.caPem, credentials: upstream.credentials }).finally(() =>
    front.stop(),
  );
}

export const relativeError = (estimated: number | null, configured: number): number =>
  estimated === null ? Number.POSITIVE_INFINITY : Math.abs(estimated - configured) / configured;

/**
 * How a rate read came out against the truth: within 2 %, or further off but the truth within the
 * precision the probe stated for it (the report says "±x %"), or off past that, below or above.
 * Only the last two are wrong readings; the second is an honest loose one.
 */
export type RateOutcome =
  'within 2 %' | 'within its precision' | 'below, past its precision' | 'above, past its precision';

export function rateOutcome(rps: number, truth: number, precision: number | null): RateOutcome {
  const error = relativeError(rps, truth);
  if (error <= 0.02) return 'within 2 %';
  if (precision !== null && Math.abs(rps - truth) <= precision * rps) return 'within its precision';
  return rps < truth ? 'below, past its precision' : 'above, past its precision';
}

/** How a sliding log's reading came out against the truth: its kind, and its rate within 2 %. */
export function periodOutcome(
  e: Pick<Estimate, 'limiter' | 'sustained_rps'>,
  truth: LimiterModel,
): 'within 2 %' | 'beyond 2 %' | 'not identified' | 'another kind' {
  if (e.limiter === null) return 'not identified';
  if (e.limiter.kind !== truth.kind) return 'another kind';
  return (relativeError(e.sustained_rps, sustainedRate(truth)) ?? Infinity) <= 0.02 ? 'within 2 %' : 'beyond 2 %';
}

/**
 * An identified reading further off the truth than the precision it states (a claim past its
 * evidence: the report says "±x %" of the rate read, as rateOutcome reads it), said with both;
 * undefined when within it, or when nothing was identified.
 */
export function pastStatedPrecision(
  e: Pick<Estimate, 'limiter' | 'sustained_rps' | 'sustained_precision'>,
  truth: LimiterModel,
): string | undefined {
  const rps = e.sustained_rps;
  const stated = e.sustained_precision ?? 0;
  if (e.limiter === null || rps === null || Math.abs(rps - sustainedRate(truth)) <= stated * rps) return undefined;
  return `${rps} req/s against ${sustainedRate(truth)}, stated ±${(100 * stated).toFixed(2)} %`;
}

/** What a failed accuracy assertion should show: the whole estimate but its long series. */
export const describeEstimate = (e: Estimate): string =>
  JSON.stringify({ ...e, timeline: `${e.timeline.length} s` }, null, 1);

/** A sliding-window counter's model as go-chi/httprate keeps it: refused requests not counted. */
export const slidingCounter = (limit: number, window_s: number, phase_s = 0): LimiterModel => ({
  kind: 'sliding-counter',
  limit,
  window_s,
  phase_s,
  counts_refused: false,
});

/** A fixed window on the clock, its edges `phase_s` past each multiple of the window: refused requests not counted. */
export const clockWindow = (limit: number, window_s: number, phase_s = 0): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s,
  phase_s,
  counts_refused: false,
});
