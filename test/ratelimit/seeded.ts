// Deterministic pseudo-random numbers (mulberry32), so a failing simulated case fails the same way
// again: the fleet simulator's own generator, one implementation for both.

export { seededRandom as seeded } from '../../src/ratelimit/fleet/random.js';
