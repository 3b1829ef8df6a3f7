// What a verdict does not cover because the user left it out: the checks --only/--skip kept from
// the run, said in every format (terminal, report.md, report.html, junit.xml) the same way, so a
// PASS of a selection never reads as a PASS of every check.

import type { ChecksLeftOut } from '../../model.js';

/** "7 checks left out by --skip tls.*, not run, so outside this verdict: tls.a, tls.b, …". */
export function leftOutText(l: ChecksLeftOut): string {
  const n = l.ids.length;
  return `${n} check${n === 1 ? '' : 's'} left out by ${l.by}, not run, so outside this verdict: ${l.ids.join(', ')}`;
}
