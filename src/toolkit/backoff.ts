// Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff And Jitter"):
// the one definition behind the checker's 429 waits, the k6 scenarios' retries, the fleet simulator
// and the bounds the rate-limit recommendation is sized with, so what is recommended is what runs.
// Pure (no Node or k6 API): the k6 bundles import it too.

/** The ceiling of the wait before retry `attempt` (0-based): base·2^attempt, capped. */
export const backoffWindowMs = (baseMs: number, capMs: number, attempt: number): number =>
  Math.min(capMs, baseMs * 2 ** attempt);

/** The wait before retry `attempt`: uniform in [0, backoffWindowMs], `random` in [0, 1). */
export const fullJitterMs = (baseMs: number, capMs: number, attempt: number, random: () => number): number =>
  random() * backoffWindowMs(baseMs, capMs, attempt);
