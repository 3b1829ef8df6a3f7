// A check whose request the rate limit still refused past the wait budget judged nothing: not
// tested (the run says why and how), never "errored", which FAILs a conformant run. Seen against
// `serve --limiter bucket --rate-limit 1 --burst 2` under `run` (30 Nov): business.invalid-token-401,
// one of 16 concurrent checks sharing 1 req/s, gave up after 11 tries and the run said FAIL, exit 1.

import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import type { Exchange } from '../../src/http/exchange.js';
import { RateLimitedError } from '../../src/http/rate-limit-wait.js';
import type { Check, CheckContext } from '../../src/runner/check.js';
import { runChecks } from '../../src/runner/run-checks.js';
import { verdictWord, verdictReasonsOf } from '../../src/report/model.js';

const ctx = { redactor: new Redactor() } as unknown as CheckContext;
const last = { status: 429, request: 'POST /v1/evaluation', headers: { 'retry-after': '1' } } as unknown as Exchange;

const check = (id: string, run: Check['run']): Check => ({
  id,
  title: id,
  spec: '4.4',
  level: 'must',
  description: id,
  run,
});

describe('a check the rate limit kept refusing', () => {
  it('is not tested, saying why and how, and the run is NOT TESTED, not FAIL', async () => {
    const untested: string[] = [];
    const results = await runChecks(
      [
        check('business.invalid-token-401', async () => {
          throw new RateLimitedError(
            'POST /v1/evaluation was still rate-limited (429) after 11 tries and 10 s of waiting',
            last,
          );
        }),
      ],
      ctx,
      { onUntested: (line) => untested.push(line) },
    );
    expect(results[0]).toMatchObject({ status: 'skip' });
    expect(results[0]!.message).toMatch(
      /^not tested: POST \/v1\/evaluation was still rate-limited .*--only business\.invalid-token-401/,
    );
    expect(untested).toEqual([
      expect.stringMatching(/^business\.invalid-token-401: POST \/v1\/evaluation was still rate-limited/),
    ]);
    const reasons = verdictReasonsOf(results, null, [{ stage: 'checks', reason: untested[0]! }]);
    expect(verdictWord({ verdict: 'fail', verdict_reasons: reasons })).toBe('NOT TESTED');
  });

  it('any other error stays an error', async () => {
    const results = await runChecks(
      [check('business.invalid-token-401', async () => Promise.reject(new Error('socket hang up')))],
      ctx,
    );
    expect(results[0]).toMatchObject({ status: 'error', message: 'socket hang up' });
  });
});
