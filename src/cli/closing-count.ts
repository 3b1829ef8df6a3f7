// The closing line that says what a run did. A checks count only where checks ran: `ratelimit`
// and `load` run none, and "0 passed, 0 failed" after a rate-limit probe reads as if nothing was
// tested. Those commands' own lines (load:, rate limit:) follow; this one says what they were.

import type { Report } from '../report/model.js';
import { noProofRan } from '../report/sections/rate-limit/words.js';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export function closingCount(report: Report): string {
  const s = report.summary;
  const checks = `${s.passed} passed, ${s.failed} failed, ${s.warned} warned, ${s.skipped} skipped, ${s.errored} errored`;
  const did: string[] = [];
  if (report.checks.length > 0) did.push(checks);
  if (report.load) did.push(`${plural(report.load.scenarios.length, 'k6 scenario')} run`);
  const rl = report.rate_limit;
  if (rl)
    did.push(
      rl.recommendation
        ? rl.proof_verdict === 'not proven within horizon'
          ? 'rate limit sized, not proven within the horizon'
          : noProofRan(rl)
            ? 'rate limit sized, not proven'
            : 'rate limit sized'
        : rl.proof_verdict === 'not proven'
          ? 'rate limit sizing not proven'
          : rl.requests_sent > 0
            ? 'rate limit probed, not sized'
            : 'rate limit not probed',
    );
  // Nothing ran at all: the "not tested" lines that follow say why.
  return did.length > 0 ? did.join('; ') : 'nothing was tested';
}
