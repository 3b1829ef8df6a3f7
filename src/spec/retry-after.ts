// Retry-After (RFC 9110 §10.2.3), which §7's "wait and retry" is read with: delay-seconds or an
// HTTP-date. This says only what the header means; how long a client is willing to wait is the
// client's business (src/http/retry-after.ts caps it, the rate-limit probe reports it as it is).

/**
 * The three HTTP-date forms (RFC 9110 §5.6.7): IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", the
 * obsolete RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT" and asctime "Sun Nov  6 08:49:37 1994". Only
 * these go to Date.parse, which would otherwise read "-1", "1.5" or "2026" as dates in the past
 * (a wait of zero) where the header is simply invalid.
 */
const HTTP_DATE = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** The delay the header asks for, ms from nowMs; undefined when absent or neither form. */
export function retryAfterDelayMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  // RFC 9110 sets no ceiling on delay-seconds; more digits than a number holds exactly read as the
  // largest one that does (285,000 years), so every output can print and serialise it (Infinity
  // would be `null` in report.json, which reads as "no Retry-After seen").
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, Number.MAX_SAFE_INTEGER);
  if (!HTTP_DATE.some((form) => form.test(v))) return undefined;
  // asctime carries no zone; RFC 9110 says it is UTC.
  const at = Date.parse(/GMT$/.test(v) ? v : `${v} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The same in seconds, for reports. */
export function retryAfterSeconds(value: string | undefined, nowMs: number): number | undefined {
  const ms = retryAfterDelayMs(value, nowMs);
  return ms === undefined ? undefined : ms / 1000;
}
