// §7's error body: "a JSON object with a string field `error`. For 401 the error text is
// `unauthorized`." The checks, the k6 scenarios and the emulator all read or write this shape.

/** The error text of every 401 (§7). */
export const UNAUTHORIZED = 'unauthorized';

/** The `error` text of a §7 error body (a parsed JSON value); undefined when the value is not one. */
export function errorTextOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const error = (body as Record<string, unknown>)['error'];
  return typeof error === 'string' ? error : undefined;
}
