// The shape of the house, kept by a test: no import cycles, and the spec's vocabulary (src/spec/)
// and the Node ↔ k6 contract depend on nothing, so config, runner, ratelimit, k6 and the emulator
// can all depend on them instead of on each other. tsc allows cycles, so nothing else would notice.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectRoot } from '../../src/fs/project-root.js';
import { importCycles, importGraph } from './import-graph.js';

const root = findProjectRoot();
const graph = importGraph(root, ['src', 'checks', 'scenarios']);

/** Every specifier a file imports, relative or not (node:…, packages, k6). */
const specifiers = (file: string) =>
  [
    ...readFileSync(join(root, file), 'utf8').matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]/g),
  ].map((m) => m[1] ?? m[2]!);

/** The folder a source file sits in, as the layers are named: src/config, src/runner, checks, … */
const layer = (file: string) =>
  (file.startsWith('src/') ? file.split('/').slice(0, 2).join('/') : file.split('/')[0]!).replace(/\.ts$/, '');

describe('imports', () => {
  it('finds the files and their imports (the parser still reads this codebase)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/runner/token-session.ts')).toContain('src/spec/expires-at.ts');
    expect(graph.get('scenarios/lib/config.ts')).toContain('src/k6/contract.ts');
  });

  it('finds a cycle when there is one (the detector is not vacuous)', () => {
    const cyclic = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(cyclic)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no import cycle between files of src/, checks/ or scenarios/', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('has no cycle between the folders of src/ either (config ↔ runner was one)', () => {
    const folders = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = layer(file);
      folders.set(from, [...(folders.get(from) ?? []), ...targets.map(layer).filter((to) => to !== from)]);
    }
    expect(importCycles(folders)).toEqual([]);
  });

  it('keeps src/spec/ and src/k6/contract.ts plain: no Node, no k6, no package, nothing above them', () => {
    const shared = [...graph.keys()].filter((f) => f.startsWith('src/spec/') || f === 'src/k6/contract.ts');
    expect(shared.length).toBeGreaterThan(4);
    for (const file of shared) {
      for (const s of specifiers(file))
        expect({ file, import: s }).toEqual({ file, import: expect.stringMatching(/^\.{1,2}\//) });
      for (const target of graph.get(file)!)
        expect({ file, target }).toEqual({ file, target: expect.stringMatching(/^src\/spec\//) });
      // Node's globals need no import, and k6 has none of them: a Buffer here breaks the scenarios at run time.
      const code = readFileSync(join(root, file), 'utf8').replace(/\/\/.*$/gm, '');
      expect({ file, nodeGlobals: code.match(/\b(Buffer|process|require|__dirname|setImmediate)\b/g) ?? [] }).toEqual({
        file,
        nodeGlobals: [],
      });
    }
  });

  it('writes the Node ↔ k6 contract once: no CES_* name, __ENV read or k6 metric list outside it', () => {
    const kSide = [...graph.keys()].filter(
      (f) =>
        (f.startsWith('scenarios/') || f.startsWith('src/k6/') || f.startsWith('src/k8s/')) &&
        f !== 'src/k6/contract.ts',
    );
    for (const file of kSide) {
      const text = readFileSync(join(root, file), 'utf8');
      // A quoted variable name (comments may name them; code goes through SCENARIO_ENV).
      expect({ file, names: text.match(/['"`]CES_[A-Z_]+/g) ?? [] }).toEqual({ file, names: [] });
      // k6's built-in metrics are listed in the contract: a second list would drift from it.
      expect({ file, list: /['"]http_req_tls_handshaking['"]/.test(text) }).toEqual({ file, list: false });
      if (file !== 'scenarios/lib/config.ts')
        expect({ file, readsEnv: text.includes('__ENV') }).toEqual({ file, readsEnv: false });
    }
  });
});
