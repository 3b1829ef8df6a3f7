// token.no-secret-echo judges the answers the run saw: with none seen it has judged nothing, and
// must not read as "the secret appeared in none of 0 answers" (a pass without a test).

import { describe, expect, it } from 'vitest';
import { check } from '../../checks/token.no-secret-echo.js';
import type { CheckContext } from '../../src/runner/check.js';
import { checkEmulator } from '../helpers/conformance.js';

const withAnswers = (seen: number, echoes: string[] = []) =>
  ({ http: { secretEchoes: () => echoes, answersSeen: () => seen } }) as unknown as CheckContext;

describe('token.no-secret-echo', () => {
  it.each([
    { seen: 0, echoes: [], status: 'skip' },
    { seen: 12, echoes: [], status: 'pass' },
    { seen: 12, echoes: ['POST /tokens'], status: 'fail' },
  ])('$seen answers, echoes $echoes → $status', async ({ seen, echoes, status }) => {
    expect((await check.run(withAnswers(seen, echoes))).status).toBe(status);
  });

  // Nothing seen is the run's circumstance (the service did not answer), not a check outside the
  // run by design: not tested, which makes the run NOT TESTED, with how to get it tested.
  it('with no answer seen, is not tested (not a plain skip), saying how to get it tested', async () => {
    const outcome = await check.run(withAnswers(0));
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toMatch(/^not tested: no answer from the service was seen .*; to test it, /);
  });
});

describe('token.no-secret-echo against a service that echoes the secret in another form', () => {
  it.each(['secret-hex-in-error', 'secret-upper-in-error'] as const)(
    '%s: warns (a should check), as token.bad-secret-401 fails: an echo in another form is an echo',
    async (fault) => {
      const results = await checkEmulator({
        faults: [fault],
        only: ['token.bad-secret-401', 'token.no-secret-echo'],
      });
      expect(results.map((r) => `${r.id}: ${r.status}`).sort()).toEqual([
        'token.bad-secret-401: fail',
        'token.no-secret-echo: warn',
      ]);
    },
  );
});
