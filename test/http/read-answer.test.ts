import { describe, expect, it } from 'vitest';
import { flattenHeaders, parseJson, readCapped } from '../../src/http/read-answer.js';

async function* chunks(...parts: string[]) {
  for (const p of parts) yield Buffer.from(p);
}

describe('reading an answer', () => {
  it('keeps a body under the cap whole', async () => {
    expect(await readCapped(chunks('ab', 'cd'), 10)).toEqual({ text: 'abcd', truncated: false });
  });

  it('cuts a body at the cap and says so', async () => {
    expect(await readCapped(chunks('abc', 'def', 'ghi'), 5)).toEqual({ text: 'abcde', truncated: true });
  });

  it('lower-cases header names and joins repeated headers', () => {
    expect(flattenHeaders({ 'Set-Cookie': ['a=1', 'b=2'], 'Retry-After': '3', gone: undefined })).toEqual({
      'set-cookie': 'a=1, b=2',
      'retry-after': '3',
    });
  });

  it('parses JSON and leaves anything else undefined', () => {
    expect(parseJson('{"error":"unauthorized"}')).toEqual({ error: 'unauthorized' });
    expect(parseJson('  ')).toBeUndefined();
    expect(parseJson('<html>')).toBeUndefined();
  });
});
