import { describe, expect, it } from 'vitest';
import { findTimestamp } from '../../src/runner/timestamp.js';

const AT = Date.UTC(2026, 10, 22, 10, 0, 5);

describe('findTimestamp', () => {
  it.each([
    ['Service is alive. Timestamp: 2026-11-22 10:00:05 UTC', AT, true],
    ['alive at 2026-11-22T10:00:05Z', AT, true],
    ['alive at 2026-11-22T10:00:05.250Z', AT + 250, true],
    ['alive at 2026-11-22 11:00:05 +0100', AT, true],
    ['alive at 2026-11-22T05:00:05-05:00', AT, true],
    ['alive, Sun, 22 Nov 2026 10:00:05 GMT', AT, true],
    ['alive: Sun Nov 22 10:00:05 UTC 2026', AT, true],
    ['alive at 2026-11-22 10:00:05', AT, false],
    ['alive at 2026-11-22T11:00:05.250+01:00', AT + 250, true],
    ['alive, Sunday, 22-Nov-26 10:00:05 GMT', AT, true],
    ['alive [22/Nov/2026:05:00:05 -0500]', AT, true],
    ['alive 22/Nov/2026:10:00:05', AT, false],
    ['alive: Sun Nov 22 10:00:05 2026', AT, false],
  ])('%s', (text, epochMs, zoned) => {
    const found = findTimestamp(text);
    expect(found?.epochMs).toBe(epochMs);
    expect(found?.zoned).toBe(zoned);
  });

  it.each([
    ['Service is alive. Timestamp: 2026-11-22 10:00:05 UTC', 'ISO 8601 d-d-d d:d:d UTC'],
    ['alive at 2026-11-22T10:00:05.250Z', 'ISO 8601 d-d-dTd:d:d.dZ'],
    ['alive, Sun, 22 Nov 2026 10:00:05 GMT', 'HTTP-date d Mon d d:d:d GMT'],
    ['alive, Sunday, 22-Nov-26 10:00:05 GMT', 'RFC 850 d-Mon-d d:d:d GMT'],
    ['alive [22/Nov/2026:05:00:05 -0500]', 'Common Log Format d/Mon/d:d:d:d -d'],
    ['alive: Sun Nov 22 10:00:05 UTC 2026', 'asctime Mon d d:d:d UTC d'],
    ['alive: Sun Nov  2 10:00:05 UTC 2026', 'asctime Mon d d:d:d UTC d'],
    ['alive at 2026-11-22T10:00:05.25Z', 'ISO 8601 d-d-dTd:d:d.dZ'],
  ])('%s: its format, the same at any time', (text, format) => {
    expect(findTimestamp(text)?.format).toBe(format);
    expect(findTimestamp(text.replace(/22/g, '23').replace(/10:00:05/, '17:41:59'))?.format).toBe(format);
  });

  it.each(['Service is alive', 'alive since 2026-11-22', 'alive at 10:00'])(
    'finds none in %s (no date and time with seconds)',
    (text) => {
      expect(findTimestamp(text)).toBeUndefined();
    },
  );
});
