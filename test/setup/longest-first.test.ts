// The real tier's order (test/setup/longest-first.ts): within each real-tier project, the files
// start longest first by test/tiers.ts `seconds`; projects stay in vitest's order, one after
// another, and the fast tier keeps vitest's order.

import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LongestFirst } from './longest-first.js';
import { REAL_TIER } from '../tiers.js';

const ROOT = '/repo';

/** What BaseSequencer.sort reads of a file: its project's name, order and tier, and its path. */
function spec(project: string, groupOrder: number, tier: 'fast' | 'real', file: string): TestSpecification {
  return {
    moduleId: `${ROOT}/${file}`,
    project: {
      name: project,
      config: { root: ROOT, sequence: { groupOrder }, isolate: true },
      getProvidedContext: () => ({ tier }),
    },
  } as unknown as TestSpecification;
}

/** No results cache, as on a clean clone: vitest's own order is then the order given. */
const sequencer = new LongestFirst({
  config: { root: ROOT },
  cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
} as unknown as Vitest);

const names = (specs: TestSpecification[]) =>
  specs.map((s) => `${s.project.name} ${s.moduleId.slice(ROOT.length + 1)}`);

describe('the real tier order', () => {
  it("starts each real-tier project's files longest first, the projects in their order, the fast tier as given", async () => {
    const short = 'test/client/misbehaving.test.ts';
    const long = 'test/integration/profiles.test.ts';
    expect(REAL_TIER[long]!.seconds).toBeGreaterThan(REAL_TIER[short]!.seconds);
    const given = [
      spec('real', 2, 'real', short),
      spec('fast', 0, 'fast', 'test/cli/cli.test.ts'),
      spec('real', 2, 'real', 'test/unlisted.test.ts'),
      spec('real-precise', 1, 'real', 'test/ratelimit/haproxy.test.ts'),
      spec('real', 2, 'real', long),
      spec('fast', 0, 'fast', short),
      spec('fast', 0, 'fast', long),
      spec('real-precise', 1, 'real', 'test/ratelimit/emulator.test.ts'),
    ];
    expect(names(await sequencer.sort(given))).toEqual([
      'fast test/cli/cli.test.ts',
      `fast ${short}`,
      `fast ${long}`,
      'real-precise test/ratelimit/emulator.test.ts',
      'real-precise test/ratelimit/haproxy.test.ts',
      `real ${long}`,
      `real ${short}`,
      'real test/unlisted.test.ts',
    ]);
  });
});
