import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/http/retry-after.js';

describe('retryAfterMs', () => {
  const now = Date.UTC(2026, 10, 22, 10, 0, 0);
  it.each([
    ['3', 3000],
    [' 0 ', 0],
    ['Sun, 22 Nov 2026 10:00:07 GMT', 7000],
    ['Sun, 22 Nov 2026 09:59:00 GMT', 0],
    ['600', undefined],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, ms) => {
    expect(retryAfterMs(value, now)).toBe(ms);
  });
});
