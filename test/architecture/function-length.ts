// How long each function of the harness's own sources is, in lines, read off TypeScript's own
// syntax tree. typescript 7 (the Go compiler) has no in-process parser in JavaScript: its
// `unstable/sync` API starts the compiler and hands its trees over, which takes about 1.5 s for the
// whole project. A tree, not a brace count: strings, templates, regular expressions, types with
// braces in a signature and arrow functions inside arguments are all the parser's business.

import { API } from 'typescript/unstable/sync';
import { isFunctionLikeDeclaration } from 'typescript/unstable/ast/is';
import { computeLineStarts, skipTrivia } from 'typescript/unstable/ast/scanner';
import type { Node } from 'typescript/unstable/ast';
import { join, relative } from 'node:path';

export interface FunctionLength {
  /** Relative to the project's root. */
  file: string;
  /** Where the function begins (its first token, after its doc comment), 1-based. */
  line: number;
  /** Its name, or `(anonymous)` for an arrow function or function expression without one. */
  name: string;
  /** From its first line to its last, both included. */
  lines: number;
}

/** Every function with a body (declarations, methods, accessors, constructors, arrows, expressions) of the project's files under `dirs`. */
export function functionLengths(root: string, dirs: readonly string[]): FunctionLength[] {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProject: join(root, 'tsconfig.json') }).getProjects()[0]!;
    const inDirs = (file: string) => dirs.some((d) => relative(join(root, d), file).split('/')[0] !== '..');
    return project.program
      .getSourceFileNames()
      .filter(inDirs)
      .flatMap((file) => {
        const source = project.program.getSourceFile(file)!;
        return lengthsIn(relative(root, file), source.text, (visit) => source.forEachChild(visit));
      });
  } finally {
    api.close();
  }
}

function lengthsIn(file: string, text: string, walk: (visit: (node: Node) => void) => void): FunctionLength[] {
  const starts = computeLineStarts(text);
  const lineOf = (pos: number) => {
    let [lo, hi] = [0, starts.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: FunctionLength[] = [];
  const visit = (node: Node): void => {
    if (isFunctionLikeDeclaration(node) && node.body) {
      const line = lineOf(skipTrivia(text, node.pos));
      const named = 'name' in node ? (node.name as { text?: unknown } | undefined) : undefined;
      const name = typeof named?.text === 'string' ? named.text : '(anonymous)';
      found.push({ file, line, name, lines: lineOf(node.end) - line + 1 });
    }
    node.forEachChild(visit);
  };
  walk(visit);
  return found;
}
