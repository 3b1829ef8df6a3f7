// What a verdict does not cover: the checks --only/--skip kept from the run, and the checks that ran
// but were skipped (a token not yet expired, an opt-in not given, a lifetime not measured), said in
// every format (terminal, report.md, report.html, junit.xml) the same way, so a PASS of a selection,
// or of what could be tested, never reads as a PASS of every check.

import type { CheckResult, ChecksLeftOut } from '../../model.js';

/** "7 checks left out by --skip tls.*, not run, so outside this verdict: tls.a, tls.b, …". */
export function leftOutText(l: ChecksLeftOut): string {
  const n = l.ids.length;
  return `${n} check${n === 1 ? '' : 's'} left out by ${l.by}, not run, so outside this verdict: ${l.ids.join(', ')}`;
}

/**
 * "6 checks skipped, so outside this verdict (each says why): token.valid-until-expiry, …"; undefined
 * when none was. A skip is a check that ran and tested nothing it could judge: the verdict rests on the rest.
 */
export function skippedText(checks: readonly Pick<CheckResult, 'id' | 'status'>[]): string | undefined {
  const ids = checks.filter((c) => c.status === 'skip').map((c) => c.id);
  const n = ids.length;
  return n === 0
    ? undefined
    : `${n} check${n === 1 ? '' : 's'} skipped, so outside this verdict (each says why): ${ids.join(', ')}`;
}
