// What of a service's answer a report may show as it is: the values the spec defines and a client
// needs to see (§2, §4.2, §4.3, §7). Every other value is shown as its shape (type, length, and a
// fingerprint for a long one), so a secret or token the service puts anywhere else never reaches a
// report, however it is encoded or laid out. Plain values: the k6 bundles may import them too.

/**
 * How a value of the spec's bodies is shown: `code` and `value` as they are when short (a longer
 * one is no code: its shape), `text` as the free text the spec allows, cut.
 */
export type Quoting = 'code' | 'value' | 'text';

/** The top-level fields of the spec's JSON bodies whose values a report shows. */
export const QUOTED_FIELDS: Readonly<Record<string, Quoting>> = {
  /** §7: the error code, `unauthorized` for a 401. */
  error: 'code',
  /** §2: always `Bearer`. */
  token_type: 'code',
  /** §2: the validation result. */
  valid: 'value',
  /** §2: epoch seconds, a timestamp. */
  expires_at: 'value',
  /** §2: the validation result's human-readable text. */
  message: 'text',
};

/**
 * The headers whose values a report shows: the content type, and what the checks judge (a 429's
 * Retry-After, the token answer's Cache-Control, a 401's WWW-Authenticate challenge, which is text).
 */
export const QUOTED_HEADERS: Readonly<Record<string, Quoting>> = {
  'content-type': 'code',
  'retry-after': 'value',
  'cache-control': 'code',
  'www-authenticate': 'text',
};

/** §4.2: the health check answers one line of free text, not a JSON object. */
export const FREE_TEXT_PATHS: readonly string[] = ['/tokens/health_check'];

/** Longest code or value shown as it is; a longer one is shown as its shape. */
export const MAX_QUOTED_CODE = 40;

/** How much of a free text (validate's message, the health line) a report shows. */
export const MAX_QUOTED_TEXT = 80;

/** A value at least this long is shown with a fingerprint beside its shape, so two can be told apart. */
export const FINGERPRINT_FROM = 16;

/** The quoting of a top-level field, or undefined when its value is shown as its shape. */
export const quotingOf = (field: string): Quoting | undefined =>
  Object.prototype.hasOwnProperty.call(QUOTED_FIELDS, field) ? QUOTED_FIELDS[field] : undefined;

/** The quoting of a header (lower-case name), or undefined when its value is shown as its shape. */
export const headerQuotingOf = (name: string): Quoting | undefined =>
  Object.prototype.hasOwnProperty.call(QUOTED_HEADERS, name) ? QUOTED_HEADERS[name] : undefined;
