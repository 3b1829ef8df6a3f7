// The probe's one owner of what it sends: the calls, the clock, the budget (max_rps, max_requests,
// the wall-clock cap, the signal, a run of transport errors), every sample (in the order the answers
// arrived), and what the refusals said along the way. The phases (stream.ts, idle-burst.ts,
// retry-after.ts, scope.ts) send only through it, so no request escapes the budget or the record.
// `check`'s burst (src/runner/limit-burst.ts) is one burstRun of a Probe of its own.

import type { Exchange } from '../../http/exchange.js';
import { ProductionBudgetReached } from '../../http/production-gate.js';
import { retryAfterSeconds } from '../../spec/retry-after.js';
import {
  announcedKey,
  readAdvertisement,
  readAdvertisements,
  type Advertisement,
} from '../../spec/ratelimit-fields.js';
import type { AdvertisedLimit } from '../../report/model.js';
import { answerOf, mergeRateLimitHeaders, resetSeconds } from '../answers.js';
import type { ProbeCalls } from '../calls.js';
import { inFlightFor, LINE_DEPARTURES, lineCapFor, reachableRps } from '../in-flight.js';
import { pace } from '../pacing.js';
import type { Clock } from '../../time/clock.js';
import type { PhaseName, RateLimitHeaders, Sample } from '../types.js';
import { shutText, ShutWatch, type ShutPastBudget } from './shut-past-budget.js';
import { QuotaWatch } from './quota-left.js';
import { IDLE_LOAD, type OwnLoad } from './own-load.js';

/** Transport errors in a row that end the probe: the target is gone, measuring further is pointless. */
export const ERROR_STREAK = 20;

/** Answers the latency is read over: enough to smooth one slow answer, few enough to follow a change. */
const LATENCY_WINDOW = 16;

export interface ProbeLimits {
  calls: ProbeCalls;
  clock: Clock;
  maxRps: number;
  maxRequests: number;
  maxDurationMs: number;
  /** The most requests in flight at once, however slow the answers (in-flight.ts: also the connection pool's size). */
  maxInFlight: number;
  /** The longest Retry-After waited out to judge it (rate_limit.max_retry_after_s). */
  maxRetryAfterS: number;
  signal: AbortSignal | undefined;
  progress: (line: string) => void;
  /** Where the samples go (a caller's array when it wants to inspect the run). */
  samples: Sample[];
  /** How busy this process is while it probes (own-load.ts); absent: read as idle (no phase but discover's asks). */
  ownLoad?: OwnLoad;
  /**
   * The longest a request should wait in a service's line (half the request timeout): the in-flight
   * count is held to what the answers' pace clears in it (in-flight.ts lineCapFor). Absent: no such hold.
   */
  lineWaitMs?: number;
}

/** One burstRun: its samples in answer order, and the milliseconds it spent sending. */
export interface BurstRun {
  samples: Sample[];
  sendingMs: number;
}

/** An announcement of the limit and the answer that carried it. */
export interface Heard {
  ad: Advertisement;
  sample: Sample;
}

/** `budget`: production's request budget (production.max_requests) held the next request back. */
/** `shut`: the service announced the limit spent until past the probe's budget (shut-past-budget.ts). */
export type StopReason = 'signal' | 'requests' | 'time' | 'errors' | 'budget' | 'shut';

/** A header's announcement on a refusal: the exchange it came with and the seconds it said. */
export interface Announced {
  exchange: Exchange;
  seconds: number;
}

/** What the refusals said, folded as they arrive. */
export interface Refusals {
  /** How often each refusing status came back (429, or a non-conformant 503…). */
  statuses: Map<number, number>;
  /**
   * The refusal a conformance verdict judges: the first one, or the first 429 when the first was
   * another status (503…), since §7 asks for 429.
   */
  judged?: Exchange;
  last?: Exchange;
  lastRetryAfter?: Announced;
  lastReset?: Announced;
  retryAfterMax: number | null;
  withoutRetryAfter: number;
  /** Of those, how many carried one that is no delay (-1, "soon"): read as none, but not absent. */
  unreadableRetryAfter?: number;
  headers?: RateLimitHeaders;
}

export class Probe {
  readonly calls: ProbeCalls;
  readonly clock: Clock;
  /** The rate it offers at most: max_rps, until a service that did not keep up lowers it (outrun.ts). */
  maxRps: number;
  /** max_rps as asked: what a probe that met no limit measures its reach against. */
  readonly askedRps: number;
  /**
   * The set-up requests (a token, the validate method) the limit counted in the drain's window: the
   * calls' overhead, sent just before the first drain. A drain sent again after a wait (outrun.ts)
   * met a limit that had forgotten them: none.
   */
  setupInDrain: number;
  readonly maxRequests: number;
  readonly maxDurationMs: number;
  readonly maxInFlight: number;
  readonly maxRetryAfterS: number;
  readonly signal: AbortSignal | undefined;
  readonly progress: (line: string) => void;
  readonly samples: Sample[];
  readonly ownLoad: OwnLoad;
  readonly refusals: Refusals = { statuses: new Map(), retryAfterMax: null, withoutRetryAfter: 0 };
  readonly advertisements: { first?: Heard; last?: Heard } = {};
  /** Every answer that announced something, in arrival order (probe/reset-ticks.ts reads where each put its reset). */
  readonly heard: Heard[] = [];
  /**
   * Every distinct limit announced (each policy of a RateLimit-Policy list, each Kong unit), the
   * latest answer that said it, keyed by limit and window: each is a hypothesis, and one the probe
   * did not verify is reported "announced, not proven" and bounds the recommendation.
   */
  readonly announced = new Map<string, Heard>();
  /** What probe/advertised.ts made of them, for the estimate. */
  advertised: AdvertisedLimit | undefined;
  /** Set when the answers announced the limit spent until past the budget, and the probe stopped (shut-past-budget.ts). */
  shut: ShutPastBudget | undefined;
  private readonly shutWatch: ShutWatch;
  /** What the answers said each announced quota had left: the estimate's quotas_left. */
  readonly quotaWatch = new QuotaWatch();
  /**
   * Why a step that could have told the limiter did not (said as the probe went): kept for the
   * report's notes, so a reading the usual phases made after it is traced there, not only in a log.
   */
  readonly asides: string[] = [];
  /** Says `line` as the probe goes and keeps it for the report's notes (asides). */
  aside(line: string): void {
    this.progress(line);
    this.asides.push(line);
  }
  /** 401s: a token expiring mid-probe; they passed the limiter. */
  unauthorized = 0;
  lastError = '';
  stoppedBy: StopReason | undefined;
  // Requests production's budget held back: dispatched, never sent, so never counted as sent.
  private heldBack = 0;

  /** When the probe started (Unix ms, on its clock): where a fixed window's edges fall is said on it. */
  readonly startedEpochMs: number;
  private dispatched = 0;
  private errorStreak = 0;
  // The last answers' times, ms: their mean sizes the in-flight count (Little's law: L = λW, W the mean).
  private readonly latencies: number[] = [];
  /** True once the in-flight bound held the offered rate below max_rps (said in the result). */
  inFlightBound = false;
  // Send times of the requests still unanswered. Answers arrive out of order; a series is only
  // complete up to the oldest of these.
  private readonly inFlight = new Map<number, number>();
  // When the last answers that came back while others were in flight came: their spacing is the service's pace.
  private readonly departures: number[] = [];
  private readonly lineWaitMs: number | undefined;

  constructor(limits: ProbeLimits) {
    this.calls = limits.calls;
    this.clock = limits.clock;
    this.maxRps = limits.maxRps;
    this.askedRps = limits.maxRps;
    this.setupInDrain = this.calls.overhead.sent;
    this.maxRequests = limits.maxRequests;
    this.maxDurationMs = limits.maxDurationMs;
    this.maxInFlight = limits.maxInFlight;
    this.maxRetryAfterS = limits.maxRetryAfterS;
    this.signal = limits.signal;
    this.progress = limits.progress;
    this.samples = limits.samples;
    this.ownLoad = limits.ownLoad ?? IDLE_LOAD;
    this.lineWaitMs = limits.lineWaitMs;
    this.startedEpochMs = this.clock.now();
    this.shutWatch = new ShutWatch(this.maxDurationMs);
  }

  /** Milliseconds since the probe started. */
  elapsed(): number {
    return this.clock.now() - this.startedEpochMs;
  }

  /** Every request so far, set-up included. */
  sentSoFar(): number {
    return this.calls.overhead.sent + this.dispatched - this.heldBack;
  }

  /** The send time up to which the series is complete (Infinity when nothing is in flight). */
  completeUpTo(): number {
    return this.inFlight.size === 0 ? Infinity : Math.min(...this.inFlight.values());
  }

  /** The mean time of the last answers, ms (0 before any came back). */
  latencyMs(): number {
    return this.latencies.length === 0 ? 0 : this.latencies.reduce((a, b) => a + b, 0) / this.latencies.length;
  }

  /**
   * In flight for max_rps at the latency measured so far (Little's law), within the bound; notes
   * when the bound is what holds the rate down, so a result can say it was not reached.
   */
  inFlightAllowed(): number {
    const latency = this.latencyMs();
    const line = this.lineWaitMs === undefined ? undefined : lineCapFor(this.departures, this.lineWaitMs);
    const allowed = Math.min(inFlightFor(this.maxRps, latency, this.maxInFlight), line ?? Infinity);
    if (reachableRps(allowed, latency) < this.maxRps) this.inFlightBound = true;
    return allowed;
  }

  /**
   * True once a bound is reached; the first bound reached is kept as the reason. A streak of errors
   * is told before the clock: the answers that made it may all come back while the time runs out
   * (1 s timeouts, awaited together), and "no valid answer" is the cause, the time only its cost (CI
   * land35: a validate silent after 50 answers read as time out with 45 of 94 unanswered).
   */
  outOfBudget(): boolean {
    if (this.stoppedBy) return true;
    if (this.signal?.aborted) this.stoppedBy = 'signal';
    else if (this.errorStreak >= ERROR_STREAK) this.stoppedBy = 'errors';
    else if (this.sentSoFar() >= this.maxRequests) this.stoppedBy = 'requests';
    else if (this.elapsed() >= this.maxDurationMs) this.stoppedBy = 'time';
    return this.stoppedBy !== undefined;
  }

  /** A phase that would wait past the wall-clock cap ends the probe there, as reaching it would. */
  outOfTime(): void {
    this.stoppedBy ??= this.errorStreak >= ERROR_STREAK ? 'errors' : 'time';
  }

  /** Sends one request and records it with what its answer said about the limit. Never throws. */
  async send(phase: PhaseName, client: 'primary' | 'second' = 'primary'): Promise<Sample> {
    const id = this.dispatched++;
    const sentMs = this.elapsed();
    this.inFlight.set(id, sentMs);
    let exchange: Exchange | undefined;
    try {
      exchange = await (client === 'second' && this.calls.second ? this.calls.second() : this.calls.primary());
    } catch (err) {
      this.lastError = err instanceof Error ? err.message : String(err);
      if (err instanceof ProductionBudgetReached) {
        this.heldBack++;
        this.stoppedBy ??= 'budget';
      }
    } finally {
      this.inFlight.delete(id);
    }
    if (exchange && this.inFlight.size > 0) {
      this.departures.push(this.elapsed());
      if (this.departures.length > LINE_DEPARTURES) this.departures.shift();
    }
    const status = exchange?.status ?? 0;
    const sample: Sample = { sentMs, doneMs: this.elapsed(), status, answer: answerOf(status), phase, client };
    this.samples.push(sample);
    if (exchange) {
      this.latencies.push(sample.doneMs - sample.sentMs);
      if (this.latencies.length > LATENCY_WINDOW) this.latencies.shift();
    }
    this.errorStreak = sample.answer === 'error' ? this.errorStreak + 1 : 0;
    if (status === 401) this.unauthorized++;
    if (sample.answer === 'limited' && exchange) this.noteRefusal(exchange);
    if (exchange) this.hear(exchange, sample);
    return sample;
  }

  /**
   * Sends at max_rps until the first refusal (or `cap` requests, or the budget): the samples of that
   * run, and how long it was sending (without the wait for the last answers).
   */
  async burstRun(phase: PhaseName, cap: number, opts: { catchUp?: boolean; exact?: boolean } = {}): Promise<BurstRun> {
    const samples: Sample[] = [];
    let refused = false;
    // `exact`: at most `cap` requests sent (a clump the limit is known to admit), rather than
    // until `cap` answers came back (requests still in flight then are sent on top).
    let started = 0;
    const startedMs = this.clock.now();
    const stoppedMs = await pace({
      catchUp: opts.catchUp ?? false,
      clock: this.clock,
      rate: () => this.maxRps,
      maxInFlight: () => this.inFlightAllowed(),
      signal: this.signal,
      done: () => refused || (opts.exact ? started : samples.length) >= cap || this.outOfBudget(),
      send: async () => {
        started++;
        const s = await this.send(phase);
        samples.push(s);
        if (s.answer === 'limited') refused = true;
      },
    });
    return { samples, sendingMs: stoppedMs - startedMs };
  }

  /** What the service announces of its limit (probe/advertised.ts tests it): the first answer that said it, and the latest. */
  private hear(exchange: Exchange, sample: Sample): void {
    const all = readAdvertisements(exchange.headers, exchange.receivedAt);
    for (const one of all) this.announced.set(announcedKey(one), { ad: one, sample });
    this.quotaWatch.observe(sample, all);
    this.watchShut(exchange, sample, all);
    // The drain meets the smallest quota first: that is the one the probe's phases can test.
    const ad = readAdvertisement(exchange.headers, exchange.receivedAt, 'burst');
    if (ad === undefined) return;
    this.advertisements.first ??= { ad, sample };
    this.advertisements.last = { ad, sample };
    this.heard.push({ ad, sample });
  }

  /** Stops the probe once refusals confirm an announced quota spent until past the budget (shut-past-budget.ts). */
  private watchShut(exchange: Exchange, sample: Sample, all: readonly Advertisement[]): void {
    const shut = this.shutWatch.observe(sample, all, sample.answer === 'limited' ? saidWait(exchange) : undefined);
    if (shut === undefined || this.stoppedBy !== undefined) return;
    this.shut = shut;
    this.stoppedBy = 'shut';
    this.progress(shutText(shut, this.maxDurationMs / 1000));
  }

  private noteRefusal(exchange: Exchange): void {
    const r = this.refusals;
    r.statuses.set(exchange.status, (r.statuses.get(exchange.status) ?? 0) + 1);
    if (!r.judged || (r.judged.status !== 429 && exchange.status === 429)) r.judged = exchange;
    r.last = exchange;
    r.headers = mergeRateLimitHeaders(r.headers, exchange.headers);
    const ra = retryAfterSeconds(exchange.headers['retry-after'], exchange.receivedAt);
    if (ra === undefined) {
      r.withoutRetryAfter++;
      if (exchange.headers['retry-after'] !== undefined) r.unreadableRetryAfter = (r.unreadableRetryAfter ?? 0) + 1;
    } else {
      r.lastRetryAfter = { exchange, seconds: ra };
      r.retryAfterMax = Math.max(r.retryAfterMax ?? 0, ra);
    }
    const reset = resetSeconds(exchange.headers, exchange.receivedAt);
    if (reset !== undefined) r.lastReset = { exchange, seconds: reset };
  }
}

/** The wait a refusal says, and what said it: Retry-After, else a reset field (shut-past-budget.ts). */
function saidWait(exchange: Exchange): { s: number; by: string } | undefined {
  const retryAfterS = retryAfterSeconds(exchange.headers['retry-after'], exchange.receivedAt);
  if (retryAfterS !== undefined) return { s: retryAfterS, by: 'Retry-After' };
  const resetS = resetSeconds(exchange.headers, exchange.receivedAt);
  return resetS !== undefined ? { s: resetS, by: 'reset field' } : undefined;
}
