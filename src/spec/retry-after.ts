// Retry-After (RFC 9110 §10.2.3), which §7's "wait and retry" is read with: delay-seconds or an
// HTTP-date. This says only what the header means; how long a client is willing to wait is the
// client's business (src/http/retry-after.ts caps it, the rate-limit probe reports it as it is).

/** The delay the header asks for, ms from nowMs; undefined when absent or neither form. */
export function retryAfterDelayMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The same in seconds, for reports. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  const ms = retryAfterDelayMs(value, nowMs);
  return ms === undefined ? undefined : ms / 1000;
}
