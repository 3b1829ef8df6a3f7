// test/tiers.ts names files by path: a file renamed or moved would drop out of the real tier's
// include unseen (and run in the fast tier instead), so every name must be a test file that exists.

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REAL_TIER, REAL_TIER_FILES, tierOf } from '../tiers.js';

describe('the test tiers', () => {
  it('name only test files that exist, each with the reason it is slow', () => {
    expect(REAL_TIER_FILES.filter((file) => !/^test\/.+\.test\.ts$/.test(file) || !existsSync(file))).toEqual([]);
    expect(REAL_TIER_FILES.filter((file) => REAL_TIER[file]!.why.trim().length < 20)).toEqual([]);
  });

  it('put a test in the fast tier when its file is not listed or its name is, in the real tier otherwise', () => {
    expect(tierOf('test/cli/cli.test.ts', 'anything')).toBe('fast');
    expect(tierOf('test/integration/profiles.test.ts', 'anything')).toBe('real');
    expect(tierOf('test/integration/network.test.ts', "'check' passes")).toBe('fast');
    expect(tierOf('test/integration/network.test.ts', "'run' passes")).toBe('real');
  });
});
