import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { limitBurst } from '../src/runner/limit-burst.js';
import { isLimitLike } from '../src/spec/limit-statuses.js';

export const check: Check = {
  id: 'ratelimit.recovers',
  title: 'After a 429, waiting and retrying succeeds',
  spec: '7',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'After the 429, the harness waits (Retry-After when given, up to `rate_limit.max_retry_after_s`, 120 s by default; else backoff from 1 s doubling, at most 60 s in all, 15 s against the built-in emulator) and retries; a retry must get past the limit (§7: wait and retry; a 4xx about the payload did). A retry still refused when that patience runs out is a failure, with the last 429 as evidence; a Retry-After past the bound is not tested.',
  phase: 'last',
  async run(ctx) {
    const burst = await limitBurst(ctx);
    if (burst.skipped) return skip(burst.skipped);
    const recovery = burst.recovery;
    if (!burst.limited || !recovery) return skip('no limit was met; see ratelimit.limit-enforced');
    if (recovery.notTested) return notTested(recovery.notTested, [ctx.http.evidence(burst.limited)]);
    const evidence = recovery.last
      ? [ctx.http.evidence(recovery.last, `after ${recovery.afterS.toFixed(1)} s (${recovery.waitedFor})`)]
      : [];
    if (!recovery.ok && recovery.last && !isLimitLike(recovery.last.status)) {
      return {
        status: 'error',
        message: `after the limit, a retry answered ${recovery.last.status} ${ctx.http.quote(recovery.last, 60)}, which says nothing about recovery; no verdict`,
        evidence,
      };
    }
    if (!recovery.ok) {
      return fail(
        `still refused ${recovery.afterS.toFixed(0)} s after the limit was met${recovery.last ? ` (last answer ${recovery.last.status})` : ''}; §7 says to wait and retry, so a retry must get through`,
        evidence,
      );
    }
    const answered =
      recovery.last && recovery.last.status >= 400
        ? `; the retry answered ${recovery.last.status}: token and limit passed, the payload was refused`
        : '';
    return pass(
      `recovered after ${recovery.afterS.toFixed(1)} s, ${recovery.attempts} ${recovery.attempts === 1 ? 'retry' : 'retries'} (waited by ${recovery.waitedFor})${answered}`,
      evidence,
    );
  },
};
