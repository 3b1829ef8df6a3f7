// The conformance side of rate limiting: one bounded burst that provokes the limit (§7, §8), then
// a polite wait and retry that shows the service recovers. Sizing the limit precisely is the
// `ratelimit` command's job; this only needs a yes/no and the first limiting answer. The burst is
// the rate-limit engine's (src/ratelimit): its calls, its pacing, its limit test, its budget.

import { businessCallsFor } from './production-calls.js';
import type { Exchange } from '../http/exchange.js';
import { RateLimitedError } from '../http/rate-limit-wait.js';
import { beyondWaitBudget } from '../http/retry-after.js';
import { retryAfterDelayMs } from '../spec/retry-after.js';
import { isLimitLike, passedTokenAndLimit } from '../spec/limit-statuses.js';
import { probeCalls } from '../ratelimit/calls.js';
import { queuedPaceOf, type QueuedPace } from '../ratelimit/probe/queued-pace.js';
import { MAX_IN_FLIGHT, MIN_IN_FLIGHT } from '../ratelimit/in-flight.js';
import { Probe } from '../ratelimit/probe/probe.js';
import { sendingEndMs, sentBeforeShut } from '../ratelimit/probe/arrival.js';
import type { CheckContext } from './check.js';
import type { Sample } from '../ratelimit/types.js';
import { intakeRps, takenRps } from '../ratelimit/intake.js';

export interface LimitBurst {
  /** Why nothing was sent (production without the flag). */
  skipped?: string;
  sent: number;
  rps: number;
  /** The rate really offered, which the machine or network may hold below `rps`. */
  achievedRps: number;
  statuses: Record<number, number>;
  /** The first answer that limited: 429, or another refusal (503…) when no 429 came. */
  limited?: Exchange;
  recovery?: {
    ok: boolean;
    afterS: number;
    attempts: number;
    last?: Exchange;
    waitedFor: 'retry-after' | 'backoff';
    notTested?: string;
  };
  /**
   * The requests sent before the first refused one was: how many of them got through, and the rate
   * they were sent at. The count a limit that refills admits depends on that rate (B·R/(R − r) for a
   * bucket), not on what the burst did after its first refusal (answers in flight, a stalled end).
   */
  beforeLimit?: { accepted: number; offeredRps: number };
  /** Why the latest request without a valid answer had none (a timeout, a body cut at the cap). */
  lastError?: string;
  durationS: number;
  /** The mean time of the last answers, ms, and whether the in-flight bound (Little's law) held the rate below max_rps. */
  latencyMs: number;
  inFlightBound: boolean;
  /**
   * Nothing refused, yet answered at a steady pace, each answer later than the one before
   * (ratelimit/probe/queued-pace.ts): a limit that delays, the service's own pace, or this machine's.
   */
  queuedPace?: QueuedPace;
}

// The burst's whole schedule (max_requests at max_rps) twice over, and never under this: slow
// answers must end it in bounded time, with "the rate was not reached" rather than a hang.
const MIN_BURST_MS = 30_000;

// The service's limiter counts this run's earlier requests too (same credentials, same address),
// and a limit that refills admits fewer before its first refusal the less it has refilled. The
// checks before the burst end 20 ms or 2 s before it depending on the machine's pace, so without a
// pause the count moved with the machine (50 on a quick one, 67 on a busy one, against the same
// 50/s, 50-at-once bucket). A second of quiet lets any limit that refills or turns over within a
// second start the burst full, whatever came before; slower limits are docs/history.md's caveat.
export const QUIET_BEFORE_BURST_MS = 1_000;

const bursts = new WeakMap<CheckContext, Promise<LimitBurst>>();

export function limitBurst(ctx: CheckContext): Promise<LimitBurst> {
  let pending = bursts.get(ctx);
  if (!pending) {
    pending = runBurst(ctx);
    bursts.set(ctx, pending);
  }
  return pending;
}

async function runBurst(ctx: CheckContext): Promise<LimitBurst> {
  const { maxRps, maxRequests, probingAllowed, endpoint } = ctx.rateLimit;
  if (!probingAllowed) {
    return {
      skipped: `rate-limit probing against ${ctx.target.environment} needs --allow-production-load`,
      sent: 0,
      rps: 0,
      achievedRps: 0,
      statuses: {},
      durationS: 0,
      latencyMs: 0,
      inFlightBound: false,
    };
  }
  // The run's token session, not a token of its own: the service hands a client one token at a time (§3).
  const calls = await probeCalls({ http: ctx.http, endpoint, business: businessCallsFor(ctx), tokens: ctx.session });
  await quietBeforeBurst(ctx);
  // Open the connections first (the health check needs no credentials), so the probe's rate is
  // not eaten by TLS handshakes at its start.
  await Promise.all(Array.from({ length: MIN_IN_FLIGHT }, () => ctx.http.healthCheck().catch(() => undefined)));
  const probe = new Probe({
    calls,
    // The context's clock: its sleep ends the burst when the run is interrupted.
    clock: { now: ctx.now, sleep: (ms) => ctx.sleep(ms) },
    maxRps,
    maxRequests,
    // The recovery has its own budget (recoveryWaitS).
    maxDurationMs: Math.max(MIN_BURST_MS, (2 * maxRequests * 1000) / maxRps),
    // Sized from the answers' latency (Little's law), so slow business answers still get max_rps.
    maxInFlight: MAX_IN_FLIGHT,
    maxRetryAfterS: ctx.rateLimit.maxRetryAfterS,
    signal: ctx.signal,
    progress: ctx.progress,
    samples: [],
  });
  ctx.progress(`probing the rate limit on ${endpoint}: up to ${maxRequests} requests at ≤${maxRps}/s`);
  // Catching up after a stall: the verdict "no limit at this rate" rests on the rate offered.
  const burst = await probe.burstRun('drain', Infinity, { catchUp: true });
  const statuses: Record<number, number> = {};
  for (const s of burst.samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  const sent = burst.samples.length;
  const limited = probe.refusals.judged;
  // The rate actually offered: from the first request sent to the last (not the drain after it),
  // or the slower pace the service took them in at behind a queue (a single worker): its limiter
  // met no more, so a burst it never refused says nothing above that.
  const achievedRps = takenRps(
    sent / Math.max(burst.sendingMs / 1000, 0.001),
    burst.samples.filter((s) => s.answer !== 'error'),
  );
  const beforeLimit = limited ? sentBeforeRefusal(burst.samples) : undefined;
  const queuedPace = limited ? undefined : queuedPaceOf(burst.samples, maxRps);
  const result: LimitBurst = {
    sent,
    rps: maxRps,
    achievedRps,
    statuses,
    ...(beforeLimit ? { beforeLimit } : {}),
    ...(probe.lastError ? { lastError: probe.lastError } : {}),
    durationS: probe.elapsed() / 1000,
    latencyMs: probe.latencyMs(),
    inFlightBound: probe.inFlightBound,
    ...(limited ? { limited } : {}),
    ...(queuedPace ? { queuedPace } : {}),
  };
  if (limited) result.recovery = await recover(ctx, calls.primary, limited);
  return result;
}

/** Waits until QUIET_BEFORE_BURST_MS have passed since the run's latest request ended (no wait when they have). */
async function quietBeforeBurst(ctx: CheckContext): Promise<void> {
  const lastEnded = ctx.http.lastRequestEndedAt();
  if (lastEnded === undefined) return;
  const waitMs = lastEnded + QUIET_BEFORE_BURST_MS - ctx.now();
  if (waitMs <= 0) return;
  ctx.progress(`letting the rate limit settle: ${(waitMs / 1000).toFixed(1)} s without requests before the burst`);
  await ctx.sleep(waitMs);
}

/** The send time of the earliest request refused (429 or another limit status), or undefined. */
function earliestRefusedMs(samples: readonly Sample[]): number | undefined {
  const refused = samples.filter((s) => s.answer === 'limited').map((s) => s.sentMs);
  return refused.length > 0 ? Math.min(...refused) : undefined;
}

/** What the requests sent before the limit shut met: see LimitBurst.beforeLimit. */
export function sentBeforeRefusal(samples: readonly Sample[]): LimitBurst['beforeLimit'] {
  const shut = sentBeforeShut(samples);
  // No refusal that the rest of the burst confirms as the shut (the burst ended on its first
  // refusals, or acceptances in flight followed them on a loaded machine): the first refused
  // request sent is the boundary, literally "before the first 429" (CI 49f: a conformant cutover
  // lost the fact, and its test, though the check passed on a 429).
  const firstRefused = shut === undefined ? earliestRefusedMs(samples) : undefined;
  const before = shut ?? (firstRefused === undefined ? undefined : samples.filter((s) => s.sentMs < firstRefused));
  if (before === undefined) return undefined;
  if (before.length === 0) return { accepted: 0, offeredRps: 0 };
  // The shut closes the span: n requests sent over the n intervals up to the first refused one.
  const spanMs = (firstRefused ?? sendingEndMs(samples)!) - before[0]!.sentMs;
  const sentRps = before.length / Math.max(spanMs / 1000, 0.001);
  return {
    accepted: before.filter((s) => s.answer === 'accepted').length,
    offeredRps: Math.min(sentRps, intakeRps(before) ?? Infinity),
  };
}

/**
 * Waits as §7 says ("wait and retry"), honouring any valid Retry-After up to
 * rate_limit.max_retry_after_s even when it is longer than the backoff's patience (recoveryWaitS);
 * a longer one is not waited out and the recovery is not tested.
 */
async function recover(
  ctx: CheckContext,
  call: () => Promise<Exchange>,
  limited: Exchange,
): Promise<NonNullable<LimitBurst['recovery']>> {
  const advised = retryAfterDelayMs(limited.headers['retry-after'], ctx.now());
  const waitedFor = advised !== undefined ? 'retry-after' : 'backoff';
  const notTested = advised === undefined ? undefined : beyondWaitBudget(advised / 1000, ctx.rateLimit.maxRetryAfterS);
  if (notTested) return { ok: false, afterS: 0, attempts: 0, waitedFor, notTested };
  const started = ctx.now();
  const budgetMs = Math.max(ctx.rateLimit.recoveryWaitS * 1000, advised ?? 0);
  let wait = advised ?? 1000;
  let last: Exchange | undefined;
  for (let attempt = 1; ctx.now() - started + wait <= budgetMs; attempt++) {
    ctx.progress(`rate limited: waiting ${(wait / 1000).toFixed(1)} s before retrying`);
    await ctx.sleep(wait);
    last = await stillLimitedAsAnswer(call);
    // A 422 for the payload got past the limit as surely as a 200 did.
    if (passedTokenAndLimit(last.status))
      return { ok: true, afterS: (ctx.now() - started) / 1000, attempts: attempt, last, waitedFor };
    // Anything but a limit (a 401, a 500) says nothing about recovery: stop rather than insist.
    if (!isLimitLike(last.status)) break;
    wait = Math.min(wait * 2, 16_000);
  }
  return { ok: false, afterS: (ctx.now() - started) / 1000, attempts: 0, ...(last ? { last } : {}), waitedFor };
}

/**
 * A retry whose token fetch was itself refused with 429 until the client's patience ran out is
 * one more answer that the limit has not lifted: evidence for the verdict, not a reason to give up.
 */
async function stillLimitedAsAnswer(call: () => Promise<Exchange>): Promise<Exchange> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RateLimitedError) return err.last;
    throw err;
  }
}

/** The 429 the burst provoked, or why there is none to judge (checks that inspect the 429 share this). */
export async function provoked429(
  ctx: CheckContext,
): Promise<{ limited: Exchange; burst: LimitBurst } | { skip: string }> {
  const burst = await limitBurst(ctx);
  if (burst.skipped) return { skip: burst.skipped };
  if (!burst.limited || burst.limited.status !== 429)
    return { skip: 'no 429 was provoked; see ratelimit.limit-enforced' };
  return { limited: burst.limited, burst };
}
