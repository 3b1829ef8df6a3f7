// The shape of src/report/, kept by a test: each section of the report has a folder under
// sections/ with one file per format, beside its shared words (and its model, where it has one).
// Loose `html-since.ts`, `since-md.ts`, `fleet-text.ts` files under three naming schemes are what
// it replaced; nothing else would stop a new section from starting that way again.

import { describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { importGraph } from './import-graph.js';

const root = findProjectRoot();
const graph = importGraph(root, ['src/report']);

// One file per format a section can appear in (report.md, report.html, junit.xml, report.json),
// optionally with a part name (`html-chart.ts`); `words.ts` is what every format of it says,
// `model.ts` the section's plain data.
const SECTION_FILE = /^(words|model|(md|html|junit|json)(-[a-z0-9]+)*)\.ts$/;

// The top level is the four documents (one per renderer in index.ts), and what builds and lists them.
const TOP_LEVEL = new Set(['index.ts', 'model.ts', 'build.ts', 'html.ts', 'markdown.ts', 'json.ts', 'junit.ts']);

/** Why a file under src/report/ is out of place, or null when it is where the layout puts it. */
function misplaced(path: string): string | null {
  const parts = path.replace(/^src\/report\//, '').split('/');
  if (parts.length === 1)
    return TOP_LEVEL.has(parts[0]!)
      ? null
      : 'loose file: a section goes to sections/<name>/<format>.ts, a shared helper to common/';
  if (parts[0] === 'common') return parts.length === 2 ? null : 'common/ has no sub-folders';
  if (parts[0] !== 'sections') return `unknown folder ${parts[0]}/: sections/ or common/`;
  if (parts.length !== 3) return 'a section is one folder, sections/<name>/<file>.ts';
  return SECTION_FILE.test(parts[2]!)
    ? null
    : 'a section file is named after its format (md, html, junit, json) or words';
}

describe('src/report/ layout', () => {
  it.each([
    ['src/report/html.ts', null],
    ['src/report/model.ts', null],
    ['src/report/common/md-text.ts', null],
    ['src/report/sections/since/md.ts', null],
    ['src/report/sections/since/model.ts', null],
    ['src/report/sections/rate-limit/html-chart.ts', null],
    ['src/report/sections/fleet/words.ts', null],
    ['src/report/html-since.ts', 'loose file'],
    ['src/report/since-md.ts', 'loose file'],
    ['src/report/fleet-text.ts', 'loose file'],
    ['src/report/lead.ts', 'loose file'],
    ['src/report/sections/fleet/fleet-text.ts', 'named after its format'],
    ['src/report/sections/fleet/markdown.ts', 'named after its format'],
    ['src/report/sections/since/trends/html.ts', 'one folder'],
    ['src/report/sections/html.ts', 'one folder'],
    ['src/report/common/html/style.ts', 'no sub-folders'],
    ['src/report/html/since.ts', 'unknown folder'],
  ])('places %s: %s', (path, problem) => {
    const why = misplaced(path);
    if (problem === null) expect(why).toBeNull();
    else expect(why).toContain(problem);
  });

  it('puts every file of src/report/ where the layout says', () => {
    expect(graph.size).toBeGreaterThan(40);
    const problems = [...graph.keys()].map((path) => ({ path, problem: misplaced(path) }));
    expect(problems.filter((p) => p.problem !== null)).toEqual([]);
  });

  it('keeps common/ below the sections: no shared helper imports a section', () => {
    const common = [...graph].filter(([path]) => path.startsWith('src/report/common/'));
    expect(common.length).toBeGreaterThan(5);
    const upward = common.flatMap(([path, targets]) =>
      targets.filter((t) => t.startsWith('src/report/sections/')).map((target) => ({ path, target })),
    );
    expect(upward).toEqual([]);
  });
});
