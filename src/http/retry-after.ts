// Retry-After (RFC 9110 §10.2.3) is either delay-seconds or an HTTP-date. Anything else, or a
// value beyond what a polite client would wait, is treated as absent so the caller backs off.

const MAX_HONOURED_MS = 120_000;

export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) {
    const ms = Number(trimmed) * 1000;
    return ms <= MAX_HONOURED_MS ? ms : undefined;
  }
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  const ms = Math.max(0, date - nowMs);
  return ms <= MAX_HONOURED_MS ? ms : undefined;
}
