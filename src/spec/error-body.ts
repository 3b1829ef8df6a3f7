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

/** An error answer as a client's error handling reads it: by its fields, never by its text. */
export interface ErrorShape {
  status: number;
  /** The Content-Type's media type, lower case, without parameters ("application/json"); "none" when absent. */
  media_type: string;
  /** §7's `error` string; "none" when the body is not a JSON object with one. */
  error: string;
  /** The JSON object's top-level keys, sorted and comma-separated; "none" when the body is not a JSON object. */
  keys: string;
}

export function errorShapeOf(status: number, contentType: string | undefined, body: unknown): ErrorShape {
  const object = typeof body === 'object' && body !== null && !Array.isArray(body);
  return {
    status,
    media_type: contentType?.split(';')[0]?.trim().toLowerCase() || 'none',
    error: errorTextOf(body) ?? 'none',
    keys: object ? Object.keys(body).sort().join(', ') || 'none' : 'none',
  };
}
