// One client instance of a fleet, as a state machine of a given clock: a queue of logical calls
// (a backlog at time 0 plus calls paced at its offered rate), handled one at a time, each retried
// on refusal as its policy says. The simulator (simulate.ts) and the k6 fleet scenario
// (scenarios/fleet.ts) both drive this class, one with simulated time and a limiter model, the
// other with the wall clock and real HTTP answers, so what is compared is the limit, not two
// implementations of a client. No Node or k6 imports.

import { ADAPTIVE_K, ADAPTIVE_WINDOW_S, backoffMs, type FleetPolicy } from './policy.js';
import type { Random } from './random.js';

export interface InstanceSetup {
  policy: FleetPolicy;
  /** Logical calls per second this instance is asked to make, evenly spaced; 0 for none. */
  rate_rps: number;
  /** Calls already queued at time 0. */
  backlog: number;
  /** When the first paced call arrives, ms: instances start spread over one interval, not in step. */
  phase_ms: number;
  /** No paced call arrives at or after this time, ms. */
  arrivals_until_ms: number;
}

/** What one instance did, counted by itself (the k6 side and the simulator read the same counts). */
export interface InstanceTally {
  /** Requests put on the wire. */
  sent: number;
  /** Of those, refused by the limit. */
  refused: number;
  /** Logical calls that succeeded (each one's time from arrival to success goes to the latency sink). */
  succeeded: number;
  /** Logical calls given up after the policy's last retry. */
  lost: number;
  /** Attempts the client refused itself (adaptive throttling), never sent. */
  throttled: number;
  /** When the last logical call finished (succeeded or lost), ms. */
  last_done_ms: number;
}

/** An answer as the instance needs it: through, or refused with the Retry-After the service sent (if any). */
export type Verdict = { ok: true } | { ok: false; retryAfterS?: number };

/** The window of an instance that keeps none: never written, so one empty array serves all. */
const NO_SLOTS: number[] = [];

export class ClientInstance {
  readonly tally: InstanceTally = { sent: 0, refused: 0, succeeded: 0, lost: 0, throttled: 0, last_done_ms: 0 };
  private call = 0;
  private attempt = 0;
  private previousWaitMs: number;
  private retryAtMs = 0;
  private readonly intervalMs: number;
  // Client-side token bucket (client-bucket): tokens as of tokensAtMs.
  private tokens: number;
  private tokensAtMs = 0;
  // Adaptive throttling: requests and accepts per one-second slot of the trailing window.
  private readonly slotSecond: number[];
  private readonly slotRequests: number[];
  private readonly slotAccepts: number[];

  /**
   * `latencies` receives each successful call's time from arrival to success, ms; the simulator
   * passes one array for the whole fleet, since a fleet of 100,000 arrays is mostly garbage.
   */
  constructor(
    private readonly setup: InstanceSetup,
    private readonly random: Random,
    readonly latencies: number[] = [],
  ) {
    this.intervalMs = setup.rate_rps > 0 ? 1000 / setup.rate_rps : Number.POSITIVE_INFINITY;
    this.previousWaitMs = setup.policy.base_ms;
    // A fleet's instances start at different times and have been calling for a while: a bucket
    // that started full in every one of them would add up to a burst of N × burst at time 0,
    // which no real fleet sends. Each starts somewhere between empty and full instead.
    this.tokens = setup.policy.name === 'client-bucket' ? random() * this.capacity() : 0;
    // Only adaptive throttling keeps a window; a fleet of 100,000 others should not allocate one each.
    const slots =
      setup.policy.name === 'adaptive' ? Math.max(1, Math.round(setup.policy.window_s ?? ADAPTIVE_WINDOW_S)) : 0;
    this.slotSecond = slots === 0 ? NO_SLOTS : new Array<number>(slots).fill(-1);
    this.slotRequests = slots === 0 ? NO_SLOTS : new Array<number>(slots).fill(0);
    this.slotAccepts = slots === 0 ? NO_SLOTS : new Array<number>(slots).fill(0);
  }

  private arrivalMs(index: number): number | null {
    const { backlog, phase_ms, arrivals_until_ms } = this.setup;
    if (index < backlog) return 0;
    const t = phase_ms + (index - backlog) * this.intervalMs;
    return t < arrivals_until_ms ? t : null;
  }

  /** When the instance next acts (sends, or throttles itself), ms; null when it has no call left. */
  nextMs(): number | null {
    const arrived = this.arrivalMs(this.call);
    if (arrived === null) return null;
    const at = Math.max(arrived, this.retryAtMs);
    const rate = this.bucketRate();
    const tokens = rate > 0 ? this.tokensAt(at, rate) : 1;
    // The attempt waits until the client-side bucket holds a whole token.
    return tokens < 1 ? at + ((1 - tokens) * 1000) / rate : at;
  }

  /**
   * At nextMs() or later: true when the attempt goes on the wire now; false when the client
   * refused it itself (adaptive throttling), which is handled like a refusal without Retry-After.
   */
  startAttempt(nowMs: number): boolean {
    const p = this.setup.policy;
    const rate = this.bucketRate();
    if (rate > 0) {
      this.tokens = this.tokensAt(nowMs, rate) - 1;
      this.tokensAtMs = Math.max(this.tokensAtMs, nowMs);
    }
    if (p.name === 'adaptive') {
      // The SRE book's rejection probability, from the requests and accepts before this one: a
      // client with no history sends (counting this request first made a fresh client refuse its
      // first request half the time, and one refused with no accept to offset it kept refusing
      // itself for good: N = 1 behind a window sent nothing at all).
      const { requests, accepts } = this.windowCounts(nowMs);
      this.slotRequests[this.slot(nowMs)]! += 1;
      const reject = Math.max(0, (requests - (p.k ?? ADAPTIVE_K) * accepts) / (requests + 1));
      if (this.random() < reject) {
        this.tally.throttled += 1;
        this.refusal(nowMs, undefined);
        return false;
      }
    }
    this.tally.sent += 1;
    return true;
  }

  /** The answer to the attempt sent last, as it arrived at `nowMs`. */
  answer(nowMs: number, verdict: Verdict): void {
    if (verdict.ok) {
      if (this.setup.policy.name === 'adaptive') this.slotAccepts[this.slot(nowMs)]! += 1;
      this.tally.succeeded += 1;
      this.latencies.push(nowMs - (this.arrivalMs(this.call) ?? 0));
      this.nextCall(nowMs);
      return;
    }
    this.tally.refused += 1;
    this.refusal(nowMs, verdict.retryAfterS);
  }

  private refusal(nowMs: number, retryAfterS: number | undefined): void {
    const p = this.setup.policy;
    if (this.attempt >= p.max_retries) {
      this.tally.lost += 1;
      this.nextCall(nowMs);
      return;
    }
    let wait = backoffMs(p, this.attempt, this.previousWaitMs, this.random);
    this.previousWaitMs = wait;
    // Retry-After is a floor the service set; the policy's own wait comes on top, so a jittering
    // policy still spreads the instances that were all told the same second.
    if (p.honour_retry_after && retryAfterS !== undefined) wait += retryAfterS * 1000;
    this.attempt += 1;
    this.retryAtMs = nowMs + wait;
  }

  private nextCall(nowMs: number): void {
    this.call += 1;
    this.attempt = 0;
    this.previousWaitMs = this.setup.policy.base_ms;
    this.retryAtMs = nowMs;
    this.tally.last_done_ms = nowMs;
  }

  private capacity(): number {
    return Math.max(1, this.setup.policy.burst ?? 1);
  }

  /** The client-side bucket's rate, req/s; 0 when the policy keeps no bucket. */
  private bucketRate(): number {
    const { name, rate_rps } = this.setup.policy;
    return name === 'client-bucket' && rate_rps !== undefined && rate_rps > 0 ? rate_rps : 0;
  }

  /** Tokens in the client-side bucket at `ms`, refilled since it was last taken from. */
  private tokensAt(ms: number, rate: number): number {
    return Math.min(this.capacity(), this.tokens + (Math.max(0, ms - this.tokensAtMs) * rate) / 1000);
  }

  /** The slot of `nowMs`'s second, emptied first when it last held an older second. */
  private slot(nowMs: number): number {
    const second = Math.floor(nowMs / 1000);
    const slot = second % this.slotSecond.length;
    if (this.slotSecond[slot] !== second) {
      this.slotSecond[slot] = second;
      this.slotRequests[slot] = 0;
      this.slotAccepts[slot] = 0;
    }
    return slot;
  }

  private windowCounts(nowMs: number): { requests: number; accepts: number } {
    const second = Math.floor(nowMs / 1000);
    let requests = 0;
    let accepts = 0;
    for (let i = 0; i < this.slotSecond.length; i++) {
      if (this.slotSecond[i]! > second - this.slotSecond.length) {
        requests += this.slotRequests[i]!;
        accepts += this.slotAccepts[i]!;
      }
    }
    return { requests, accepts };
  }
}
