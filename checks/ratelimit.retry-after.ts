import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { provoked429 } from '../src/runner/limit-burst.js';
import { retryAfterDelayMs } from '../src/spec/retry-after.js';

export const check: Check = {
  id: 'ratelimit.retry-after',
  title: 'A 429 says when to retry (Retry-After), truthfully',
  spec: 'RFC 9110 §10.2.3, RFC 6585 §4',
  level: 'should',
  needsAcceptedCredentials: true,
  description:
    'Good practice the spec does not demand: the 429 carries a Retry-After header, and a retry after that delay succeeds.',
  phase: 'last',
  async run(ctx) {
    const found = await provoked429(ctx);
    if ('skip' in found) return skip(found.skip);
    const { limited, burst } = found;
    const header = limited.headers['retry-after'];
    const evidence = [ctx.http.evidence(limited, `Retry-After: ${ctx.http.quoteHeader(limited, 'retry-after')}`)];
    if (header === undefined)
      return fail('the 429 has no Retry-After header; clients must guess their backoff', evidence);
    if (retryAfterDelayMs(header, limited.receivedAt) === undefined)
      return fail(
        `Retry-After ${ctx.http.quoteHeader(limited, 'retry-after')} is neither seconds nor an HTTP-date`,
        evidence,
      );
    // Past the wait budget it was never waited out: ratelimit.recovers says so (not tested).
    if (burst.recovery?.notTested) return notTested(burst.recovery.notTested, evidence);
    if (burst.recovery && burst.recovery.attempts !== 1) {
      return fail(`a retry after Retry-After: ${header} was refused again; the header understates the wait`, evidence);
    }
    return pass(`Retry-After: ${header}, and a retry after it succeeded`, evidence);
  },
};
