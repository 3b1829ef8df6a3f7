// vitest setupFile of both tiers: in a file with tests in both (test/tiers.ts), each test runs in
// its own tier and skips in the other, saying where it runs.

import { beforeEach, inject } from 'vitest';
import { REAL_TIER, tierOf, type Tier } from '../tiers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    tier: Tier;
  }
}

const tier = inject('tier');

beforeEach((context) => {
  // The file's path relative to the project root, with '/', as test/tiers.ts spells it.
  const file = context.task.file.name;
  if (!REAL_TIER[file]?.fast) return;
  const wants = tierOf(file, context.task.name);
  if (wants !== tier) context.skip(`in the ${wants} tier (test/tiers.ts)`);
});
