// Reading an answer off the wire into plain values: the body capped (a misbehaving service must
// not flood the harness) and decoded when it is compressed (content-coding.ts), headers flattened
// to one string each, JSON parsed where it is JSON.

import { codingsOf, decodeBody, UnreadableBody } from './content-coding.js';

/**
 * The body as text, at most `cap` bytes of it. An answer with a Content-Encoding is decoded, under
 * the same cap for what came over the wire and for what it decodes to; one that does not fit, or
 * does not decode, throws UnreadableBody: a prefix of a compressed stream decodes to nothing useful.
 */
export async function readCapped(
  body: AsyncIterable<Buffer> & { destroy?: () => void },
  cap: number,
  contentEncoding?: string,
): Promise<{ text: string; truncated: boolean }> {
  const codings = codingsOf(contentEncoding);
  const raw = await collect(body, cap);
  if (codings.length === 0) return { text: raw.bytes.toString('utf8'), truncated: raw.truncated };
  if (raw.truncated)
    throw new UnreadableBody(
      `the ${codings.join(', ')}-coded answer is larger than the ${cap}-byte body cap; not read`,
    );
  return { text: decodeBody(raw.bytes, codings, cap).toString('utf8'), truncated: false };
}

async function collect(
  body: AsyncIterable<Buffer> & { destroy?: () => void },
  cap: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = cap - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      body.destroy?.();
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The body as JSON, or undefined when it is empty or not JSON: a check judges the shape, not the parse. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
