// A probe whose answers were not the endpoint working measured no rate limit: it must say so
// (and the run must not pass), while a real run's few 401s at a token's expiry stay normal.
import { describe, expect, it } from 'vitest';
import { unusableProbe } from '../../src/ratelimit/answers.js';

const tally = (entries: Array<[number | string, number]>) => new Map(entries);

describe('unusableProbe', () => {
  it.each([
    {
      name: 'a working endpoint, then its limit',
      t: [
        [200, 300],
        [429, 40],
      ],
      problem: undefined,
    },
    {
      name: 'a few 401s while a token turned over',
      t: [
        [200, 300],
        [429, 40],
        [401, 3],
      ],
      problem: undefined,
    },
    {
      name: 'a 503-limited endpoint (its status is judged elsewhere)',
      t: [
        [200, 100],
        [503, 30],
      ],
      problem: undefined,
    },
    // The token and the limit let these through; only the payload was refused (business-rejects-payload).
    {
      name: 'a business endpoint refusing the payload with 422, then its limit',
      t: [
        [422, 300],
        [429, 40],
      ],
      problem: undefined,
    },
    { name: 'every answer 404 (no such endpoint)', t: [[404, 50]], problem: /\(50 × 404\)/ },
    {
      name: 'every answer 401',
      t: [[401, 120]],
      problem: /only 0 of 120 probe answers came from the working endpoint \(120 × 401\); check the credentials/,
    },
    { name: 'every answer a redirect', t: [[302, 80]], problem: /\(80 × 302\); the target redirects/ },
    {
      name: 'mostly 5xx',
      t: [
        [500, 90],
        [200, 10],
      ],
      problem: /only 10 of 100 .*\(90 × 500\)/,
    },
    { name: 'no answer at all', t: [[0, 20]], problem: /20 × no answer/ },
    // A body without end, cut at the cap (calls.ts AnswerOverCap): a 200 the limit is never credited with.
    {
      name: 'mostly answers over the body cap',
      t: [
        ['200 over the body cap', 20],
        [200, 2],
      ],
      problem: /^only 2 of 22 .*\(20 × 200 over the body cap\); the service must end its answers/,
    },
    { name: 'nothing sent', t: [], problem: /no answer at all/ },
  ] as Array<{ name: string; t: Array<[number | string, number]>; problem: RegExp | undefined }>)(
    '$name',
    ({ t, problem }) => {
      const got = unusableProbe(tally(t));
      if (problem === undefined) expect(got).toBeUndefined();
      else expect(got).toMatch(problem);
    },
  );
});
