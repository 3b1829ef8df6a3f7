// `ces-harness checks`: the check catalogue as a person or a script reads it, so the values of
// --only and --skip can be found without opening the docs. Plain text by default, one JSON
// array with --json (the same fields as the table in docs/checks.md).

import { CHECKS } from '../../../checks/index.js';
import { specLabel } from '../../report/model.js';
import type { Options } from '../flags.js';

export interface CheckListing {
  id: string;
  /** The part before the first dot: what `--only GROUP.*` selects. */
  group: string;
  level: string;
  spec: string;
  title: string;
  description: string;
}

export const checkListing = (): CheckListing[] =>
  CHECKS.map((c) => ({
    id: c.id,
    group: c.id.split('.')[0]!,
    level: c.level,
    spec: specLabel(c.spec),
    title: c.title,
    description: c.description,
  }));

export function checksListing(options: Options): string {
  const list = checkListing();
  if (options.json) return JSON.stringify(list, null, 2);
  const width = Math.max(...list.map((c) => c.id.length));
  const levelWidth = Math.max(...list.map((c) => c.level.length));
  return [
    ...list.map((c) => `${c.id.padEnd(width)}  ${c.level.padEnd(levelWidth)}  ${c.spec}: ${c.title}`),
    '',
    `${list.length} checks. Select with --only ID / --skip ID (repeatable; GROUP.* selects a group: ${[...new Set(list.map((c) => c.group))].join(', ')}).`,
  ].join('\n');
}
