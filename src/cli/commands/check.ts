// `ces-harness check`: conformance checks only. Also the first stage of `run`.

import { CHECKS } from '../../../checks/index.js';
import { usageError } from '../../errors.js';
import type { CheckResult } from '../../report/model.js';
import type { Check } from '../../runner/check.js';
import { runConformance } from '../../runner/conformance.js';
import { selectChecks } from '../../runner/run-checks.js';
import type { Options } from '../flags.js';
import { resultLine } from '../terminal.js';
import type { StageIo } from './target-job.js';

/** Validates --only/--skip before anything starts, so a typo costs no emulator and no request. */
export function selectedChecks(options: Options): Check[] {
  const { selected, unknown } = selectChecks(CHECKS, options.only ?? [], options.skip ?? []);
  if (unknown.length) throw usageError(`unknown check ${unknown.join(', ')}; ces-harness checks lists the ids`);
  return selected;
}

export function conformanceStage(checks: readonly Check[]) {
  return ({ prepared, redactor, terminal, signal, untested }: StageIo): Promise<CheckResult[]> =>
    runConformance({
      ...prepared.settings,
      ledger: prepared.ledger,
      checks,
      redactor,
      progress: terminal.progress,
      onResult: (r) => terminal.out(resultLine(r)),
      onCredentialsRefused: (line) => untested('credentials', line),
      onUntested: (line) => untested('checks', line),
      signal,
    });
}
