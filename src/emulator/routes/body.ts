// Request bodies as the routes see them: parsed once, with "not JSON at all" kept distinct from
// any JSON value (null included), because §4.1 and §4.4 answer both with 400 but for other reasons.

export const NOT_JSON: unique symbol = Symbol('not-json');

export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return NOT_JSON;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return NOT_JSON;
  }
}
