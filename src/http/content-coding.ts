// HTTP content codings (RFC 9110 §8.4): what the harness offers in Accept-Encoding, how an answer
// coded with them is decoded under the body cap, and, for the emulator's compression profile, which
// coding a request allows and how a body is coded with it. Gateways compress answers for any client
// that offers a coding (browsers, curl --compressed and most SDKs do), and nothing in the spec
// forbids it, so the harness offers what such clients offer and must read what comes back.

import {
  brotliCompressSync,
  brotliDecompressSync,
  deflateSync,
  gunzipSync,
  gzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';

export const CONTENT_CODINGS = ['gzip', 'deflate', 'br'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** Sent on every request, as a browser or `curl --compressed` would. */
export const ACCEPT_ENCODING = CONTENT_CODINGS.join(', ');

const isCoding = (s: string): s is ContentCoding => (CONTENT_CODINGS as readonly string[]).includes(s);

/** The codings of a Content-Encoding header in the order they were applied, `identity` left out. */
export function codingsOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/**
 * The first coding of `preference` the request's Accept-Encoding allows (RFC 9110 §12.5.3: a
 * coding with q=0 is refused, `*` stands for any coding not named), or undefined for none. No
 * header at all allows nothing here: a gateway compresses only for clients that ask.
 */
export function chooseCoding(
  acceptEncoding: string | undefined,
  preference: readonly ContentCoding[],
): ContentCoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const weight = params.map((p) => /^q=([\d.]+)$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(name, weight === undefined ? 1 : Number(weight));
  }
  return preference.find((c) => (q.get(c) ?? q.get('*') ?? 0) > 0);
}

export function encodeBody(coding: ContentCoding, body: Buffer): Buffer {
  if (coding === 'gzip') return gzipSync(body);
  if (coding === 'br') return brotliCompressSync(body);
  return deflateSync(body);
}

/** Why an answer's body could not be read; the caller names the request. */
export class UnreadableBody extends Error {
  override readonly name = 'UnreadableBody';
}

/**
 * The body with its codings undone, last applied first, never more than `cap` bytes at any step:
 * a few KiB of gzip can inflate to gigabytes (a "zip bomb"), and zlib stops at maxOutputLength
 * instead of producing them. Decoding a capped body synchronously takes well under a millisecond.
 */
export function decodeBody(body: Buffer, codings: readonly string[], cap: number): Buffer {
  let out = body;
  for (const coding of [...codings].reverse()) {
    if (!isCoding(coding))
      throw new UnreadableBody(
        `the answer is coded ${codings.join(', ')}, which was not offered (Accept-Encoding: ${ACCEPT_ENCODING})`,
      );
    try {
      out = decodeOne(coding, out, cap);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ERR_BUFFER_TOO_LARGE')
        throw new UnreadableBody(`the ${coding}-coded answer decodes to more than the ${cap}-byte body cap; not read`);
      throw new UnreadableBody(`the ${coding}-coded answer does not decode (${e.code ?? e.message})`);
    }
  }
  return out;
}

function decodeOne(coding: ContentCoding, body: Buffer, cap: number): Buffer {
  const limit = { maxOutputLength: cap };
  if (coding === 'gzip') return gunzipSync(body, limit);
  if (coding === 'br') return brotliDecompressSync(body, limit);
  // `deflate` is the zlib format (RFC 9110 §8.4.1.2), but some servers send bare deflate data, which
  // browsers accept too: a zlib stream starts with a header byte whose low nibble is 8 (CM=deflate).
  const zlibWrapped = body.length > 0 && (body[0]! & 0x0f) === 8;
  return zlibWrapped ? inflateSync(body, limit) : inflateRawSync(body, limit);
}
