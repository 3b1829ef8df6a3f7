// §2: a token's `expires_at` is epoch seconds. Services get it wrong in two common ways
// (milliseconds, a digit string); the checks judge those, and everything else reads the instant
// through this one parser so a wrong unit cannot make a token look valid for 50 000 years.

/** expires_at as epoch seconds, tolerating milliseconds and digit strings; undefined when it is no time. */
export function epochSeconds(value: unknown): number | undefined {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())
        ? Number(value)
        : NaN;
  if (!Number.isFinite(n) || n <= 0) return undefined;
  // Epoch seconds stay below 1e11 until the year 5138; a value above is milliseconds.
  return n > 1e11 ? n / 1000 : n;
}
