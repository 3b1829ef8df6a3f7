// A token bucket per client key. Buckets are refilled lazily from the elapsed time when a key is
// seen, so there are no timers and an idle client costs nothing but its map entry.

export type LimitDecision = { ok: true } | { ok: false; retryAfterS: number };

interface Bucket {
  tokens: number;
  lastMs: number;
}

/** Beyond this many keys the oldest bucket is dropped, so garbage client ids cannot grow memory. */
const MAX_KEYS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly rps: number;
  private readonly burst: number;

  /** rps 0 turns the limiter off; a capacity below 1 could never admit anyone, so it is raised to 1. */
  constructor(rps: number, burst: number) {
    this.rps = rps;
    this.burst = Math.max(1, burst);
  }

  get enabled(): boolean {
    return this.rps > 0;
  }

  take(key: string, nowMs: number): LimitDecision {
    if (!this.enabled) return { ok: true };
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.burst, lastMs: nowMs };
      this.remember(key, bucket);
    } else {
      // A clock moved backwards (tests may do that) must not drain or overfill the bucket.
      const elapsedS = Math.max(0, nowMs - bucket.lastMs) / 1000;
      bucket.tokens = Math.min(this.burst, bucket.tokens + elapsedS * this.rps);
      bucket.lastMs = Math.max(bucket.lastMs, nowMs);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    // Truthful Retry-After: the whole seconds until one token has dripped back, never 0.
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / this.rps)) };
  }

  private remember(key: string, bucket: Bucket): void {
    if (this.buckets.size >= MAX_KEYS) {
      // Map iteration is insertion order: the first key is the oldest. One eviction per insert.
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
    this.buckets.set(key, bucket);
  }
}
