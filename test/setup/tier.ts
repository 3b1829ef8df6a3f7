// vitest setupFile of both tiers: in a file with tests in both (test/tiers.ts), each test runs in
// its own tier and skips in the other, saying where it runs.

import { beforeAll, beforeEach, inject } from 'vitest';
import type { RunnerTask, RunnerTestFile } from 'vitest';
import { REAL_TIER, tierOf, type Tier } from '../tiers.js';
import { untilQuiet } from './quiet-machine.js';

declare module 'vitest' {
  export interface ProvidedContext {
    tier: Tier;
  }
}

const tier = inject('tier');
const checked = new Set<string>();

// A precision run starts once the imports of the files started beside it are done (quiet-machine.ts):
// half the cores idle over half a second, 20 s at most.
beforeAll(async ({}, suite) => {
  const file = suite.file.name;
  const real = REAL_TIER[file];
  if (tier !== 'real' || !real?.precise) return;
  const { waitedMs, quiet } = await untilQuiet({ idleShare: 0.5, sampleMs: 500, maxMs: 20_000 });
  if (waitedMs > 600 || !quiet)
    console.info(
      `${file}: started after ${(waitedMs / 1000).toFixed(1)} s waiting for a quiet machine${quiet ? '' : ' (never quiet)'}`,
    );
}, 30_000);

beforeEach((context) => {
  // The file's path relative to the project root, with '/', as test/tiers.ts spells it.
  const file = context.task.file;
  const patterns = REAL_TIER[file.name]?.fast;
  if (!patterns) return;
  if (!checked.has(file.name)) {
    checked.add(file.name);
    expectEveryPatternNamesATest(file, patterns);
  }
  const wants = tierOf(file.name, context.task.name);
  if (wants !== tier) context.skip(`in the ${wants} tier (test/tiers.ts)`);
});

/** A pattern that names no test (a renamed test, vitest quoting a `$value`) would move it to the real tier unseen. */
function expectEveryPatternNamesATest(file: RunnerTestFile, patterns: RegExp[]): void {
  const names: string[] = [];
  const walk = (task: RunnerTask): void => {
    if (task.type === 'suite') task.tasks.forEach(walk);
    else names.push(task.name);
  };
  file.tasks.forEach(walk);
  const unmatched = patterns.filter((pattern) => !names.some((name) => pattern.test(name)));
  if (unmatched.length > 0)
    throw new Error(`test/tiers.ts: no test of ${file.name} is named like ${unmatched.join(', ')}`);
}
