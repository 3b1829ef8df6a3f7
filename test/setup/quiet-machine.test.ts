import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { untilQuiet } from './quiet-machine.js';

describe.skipIf(!existsSync('/proc/stat'))('untilQuiet (the precision runs wait for it, test/setup/tier.ts)', () => {
  it('returns after one sample when any idle share will do', async () => {
    const r = await untilQuiet({ idleShare: 0, sampleMs: 20, maxMs: 5_000 });
    expect(r.quiet).toBe(true);
    expect(r.waitedMs).toBeLessThan(5_000);
  });

  it('gives up after its bound when the machine can never be that idle, and says it was not quiet', async () => {
    const r = await untilQuiet({ idleShare: 1.01, sampleMs: 20, maxMs: 100 });
    expect(r.quiet).toBe(false);
    expect(r.waitedMs).toBeGreaterThanOrEqual(100);
  });
});
