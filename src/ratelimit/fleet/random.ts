// Seeded pseudo-random numbers (mulberry32): the simulator's runs repeat exactly for a seed, and
// each client instance draws from its own stream, so adding an instance never reshuffles the
// others' draws. Plain code with no imports: the k6 fleet scenario bundles it too.

export type Random = () => number;

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Instance `index`'s own seed, spread so neighbouring instances' streams are unrelated. */
export const instanceSeed = (seed: number, index: number): number =>
  (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
