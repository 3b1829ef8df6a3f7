// The emulator's business latency: a slower service on demand (issue 11's "10× slower business
// endpoint"). Only lower bounds are asserted: a busy machine can make an answer later, never sooner.

import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { resolveOptions } from '../../src/emulator/options.js';
import { start } from './support/client.js';

describe('businessLatencyMs', () => {
  it('holds each business answer at least that long, and leaves the token endpoints alone', async () => {
    const r = await start({ businessLatencyMs: 400 });
    try {
      const token = JSON.parse((await r.issue()).text).token as string;
      for (const path of ['/v1/evaluation', '/v1/ach_transactions']) {
        const t0 = performance.now();
        const answer = await r.call('POST', path, { json: {}, bearer: token });
        expect(answer.status).toBe(200);
        expect(performance.now() - t0).toBeGreaterThanOrEqual(390);
      }
    } finally {
      await r.close();
    }
  });

  it('is refused outside 0-10000 ms as a usage error', () => {
    for (const bad of [-1, 10_001, 1.5]) {
      expect(() => resolveOptions({ businessLatencyMs: bad })).toThrow(HarnessError);
      expect(() => resolveOptions({ businessLatencyMs: bad })).toThrow(
        /business latency .* must be a whole number of milliseconds from 0 to 10000/,
      );
    }
    expect(resolveOptions({}).businessLatencyMs).toBe(0);
  });
});
