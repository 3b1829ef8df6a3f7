// The shape of a request body without its values: `{"token":{"client_id":string,...}}`. What the
// client sent is judged and reported by shape, so no secret or token value is ever kept.

const MAX_DEPTH = 4;

function shapeOf(value: unknown, depth: number): string {
  if (value === null) return 'null';
  if (Array.isArray(value))
    return depth >= MAX_DEPTH ? '[…]' : `[${value.length === 0 ? '' : shapeOf(value[0], depth + 1)}]`;
  if (typeof value === 'object') {
    if (depth >= MAX_DEPTH) return '{…}';
    const fields = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${JSON.stringify(k.slice(0, 40))}:${shapeOf(v, depth + 1)}`,
    );
    return `{${fields.join(',')}}`;
  }
  return typeof value;
}

/** `none` for an empty body, `text (N bytes)` for one that is not JSON, else the JSON shape. */
export function bodyShape(body: Buffer): string {
  if (body.length === 0) return 'none';
  try {
    return shapeOf(JSON.parse(body.toString('utf8')), 0);
  } catch {
    return `text (${body.length} bytes)`;
  }
}

/** §4.1: exactly one key `token` holding the two strings. */
export const TOKEN_BODY_SHAPE = bodyShape(Buffer.from(JSON.stringify({ token: { client_id: '', client_secret: '' } })));
