// The import graph of the harness's own sources, read from their import lines. A small parser is
// enough: every module here imports with a static `import … from '…'` or `export … from '…'`
// (plus lazy `import('…')`), and only relative specifiers name another file of the graph.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// `import x from '…'`, `import type {…} from '…'`, `export {…} from '…'`, `import '…'`, and the
// lazy `import('…')` the CLI uses to keep the emulator off its start-up path. Multi-line import
// lists end in `} from '…'`, which the first alternative matches.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** Every .ts file under dir, as paths relative to root. */
function tsFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(root, path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** file → the files of the graph it imports (relative imports only; `.js` names its `.ts`). */
export function importGraph(root: string, dirs: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => tsFiles(root, d))) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = [...text.matchAll(SPECIFIER)]
      .map((m) => m[1]!)
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(root, resolve(root, dirname(file), s)).replace(/\.js$/, '.ts'));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * The import cycles, one per strongly connected component of more than one file (or a file that
 * imports itself), each as its files sorted. Tarjan's algorithm: one pass, no cycle listed twice.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = ''; w !== v;) {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}
