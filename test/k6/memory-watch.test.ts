// The watch on k6's resident memory (src/k6/memory-watch.ts), on this test's own process: its cap
// stops a process past its share, and the floor keeps the share from falling to what a conformant
// k6 holds when many run at once on a small machine. Linux /proc, as the watch itself.

import { describe, expect, it } from 'vitest';
import { residentBytes, watchResident } from '../../src/k6/memory-watch.js';

describe('watchResident', () => {
  it('reports a process past its cap, with its share', async () => {
    expect(await residentBytes(process.pid)).toBeGreaterThan(1);
    const share = await new Promise<number>((resolve) => {
      watchResident(process.pid, 1, resolve);
    });
    expect(share).toBe(1);
  });

  it('never below its floor: the same process under a floor above it is left alone', async () => {
    let fired: number | undefined;
    const stop = watchResident(process.pid, 1, (share) => void (fired = share), 2 ** 40);
    // Four polls (250 ms apart): time enough for the unfloored watch above to fire.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    stop();
    expect(fired).toBeUndefined();
  });
});
