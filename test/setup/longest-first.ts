// vitest's sequencer, for the real tier: within each of its projects, the files start longest first
// (test/tiers.ts `seconds`), so that no long file starts last and ends the phase alone. vitest's own
// order is longest first only from its results cache, which a clean clone (CI) has not: there it
// starts the largest files first (by bytes, not by time: profiles.test.ts, 221 s, comes sixth of 19
// in `real` by size). The fast tier keeps vitest's order (its files with a test in both tiers have `seconds` too).

import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { relative } from 'node:path';
import { REAL_TIER } from '../tiers.js';

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (spec: TestSpecification) =>
      REAL_TIER[relative(spec.project.config.root, spec.moduleId).split('\\').join('/')]?.seconds ?? 0;
    // vitest's order keeps each project's files together (projects run one after another): reorder
    // within each run of one real-tier project.
    const runs: TestSpecification[][] = [];
    for (const spec of sorted) {
      const run = runs.at(-1);
      if (run && run[0]!.project.name === spec.project.name) run.push(spec);
      else runs.push([spec]);
    }
    return runs.flatMap((run) =>
      run[0]!.project.getProvidedContext().tier === 'real' ? [...run].sort((a, b) => seconds(b) - seconds(a)) : run,
    );
  }
}
