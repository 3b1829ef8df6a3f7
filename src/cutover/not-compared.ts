// Facts shown side by side that are not comparable between the two environments: a figure whose
// value depends on a condition the machine set when it was read (history/figures.ts) is compared
// only under the history's own rule (history/comparable.ts). The count before the first 429 of a
// burst offered at 196 req/s is no measure of one offered at 69 req/s (a limit that refills admits
// more of a slower burst), so a difference between them is no finding, and a likeness no proof.

import { notComparedBetween } from '../history/comparable.js';
import { FACT_SOURCES, type EnvironmentFacts } from './facts.js';

export interface NotComparedFact {
  /** The fact's name, as in EnvironmentFacts (and the side-by-side row it annotates). */
  fact: string;
  /** "not compared: offered 196 vs 69 req/s (compared only within ×1.2)", production's first. */
  why: string;
  /** The whole line for the report's lists: the label, both values and why. */
  line: string;
}

/** The figures both sides measured whose conditions are too far apart to compare them. Pure. */
export function notComparedFacts(p: EnvironmentFacts, s: EnvironmentFacts): NotComparedFact[] {
  const value = (e: EnvironmentFacts, name: string): unknown => (e as unknown as Record<string, unknown>)[name];
  return FACT_SOURCES.flatMap(({ name, check, fact, label }) => {
    const [pv, sv] = [value(p, name), value(s, name)];
    if (typeof pv !== 'number' || typeof sv !== 'number') return [];
    // A condition is another fact of the same check, read on the same side.
    const reader = (e: EnvironmentFacts) => (figure: string) => {
      const source = FACT_SOURCES.find((f) => f.check === check && f.fact === figure);
      const v = source && value(e, source.name);
      return typeof v === 'number' ? v : undefined;
    };
    const why = notComparedBetween(fact, reader(p), reader(s));
    if (why === undefined) return [];
    return [{ fact: name, why, line: `${label}: ${pv} on ${p.environment}, ${sv} on ${s.environment}, ${why}` }];
  });
}
