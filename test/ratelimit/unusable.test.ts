// A probe whose answers were not the endpoint working measured no rate limit: it must say so
// (and the run must not pass), while a real run's few 401s at a token's expiry stay normal.
import { describe, expect, it } from 'vitest';
import { gapsInStream, unusableProbe } from '../../src/ratelimit/answers.js';

const tally = (entries: Array<[number | string, number]>) => new Map(entries);

/** A tally, and what the rule says of it (undefined: nothing). */
interface Row {
  name: string;
  t: Array<[number | string, number]>;
  said: RegExp | undefined;
}

const expectSaid = (got: string | undefined, said: RegExp | undefined) =>
  said === undefined ? expect(got).toBeUndefined() : expect(got).toMatch(said);

describe('unusableProbe', () => {
  it.each([
    {
      name: 'a working endpoint, then its limit',
      t: [
        [200, 300],
        [429, 40],
      ],
      said: undefined,
    },
    {
      name: 'a few 401s while a token turned over',
      t: [
        [200, 300],
        [429, 40],
        [401, 3],
      ],
      said: undefined,
    },
    {
      name: 'a 503-limited endpoint (its status is judged elsewhere)',
      t: [
        [200, 100],
        [503, 30],
      ],
      said: undefined,
    },
    // The token and the limit let these through; only the payload was refused (business-rejects-payload).
    {
      name: 'a business endpoint refusing the payload with 422, then its limit',
      t: [
        [422, 300],
        [429, 40],
      ],
      said: undefined,
    },
    { name: 'every answer 404 (no such endpoint)', t: [[404, 50]], said: /\(50 × 404\)/ },
    {
      name: 'every answer 401',
      t: [[401, 120]],
      said: /only 0 of 120 probe answers came from the working endpoint \(120 × 401\); check the credentials/,
    },
    { name: 'every answer a redirect', t: [[302, 80]], said: /\(80 × 302\); the target redirects/ },
    {
      name: 'mostly 5xx',
      t: [
        [500, 90],
        [200, 10],
      ],
      said: /only 10 of 100 .*\(90 × 500\)/,
    },
    { name: 'no answer at all', t: [[0, 20]], said: /20 × no answer/ },
    // A body without end, cut at the cap (calls.ts AnswerOverCap): a 200 the limit is never credited with.
    {
      name: 'mostly answers over the body cap',
      t: [
        ['200 over the body cap', 20],
        [200, 2],
      ],
      said: /^only 2 of 22 .*\(20 × 200 over the body cap\); the service must end its answers/,
    },
    // Requests timed out behind the endless bodies outnumber them (CI land83): the hint is still said.
    {
      name: 'more no answers than answers over the body cap',
      t: [
        [0, 19],
        ['200 over the body cap', 16],
      ],
      said: /^only 0 of 35 .*\(19 × no answer, 16 × 200 over the body cap\); the service must end its answers/,
    },
    { name: 'nothing sent', t: [], said: /no answer at all/ },
  ] as Row[])('$name', ({ t, said }) => expectSaid(unusableProbe(tally(t)), said));
});

describe('gapsInStream', () => {
  it.each([
    { name: 'a clean stream', t: [[200, 900]], said: undefined },
    // A reset or two in a long probe is any network's.
    {
      name: 'a few lost on the way',
      t: [
        [200, 900],
        [0, 5],
      ],
      said: undefined,
    },
    {
      name: 'one in three unanswered',
      t: [
        [200, 100],
        [0, 50],
      ],
      said: /^50 of 150 probe requests got no valid answer \(50 × no answer\): a stream with that many gaps shows no "no limit"/,
    },
    {
      name: 'bodies cut at the cap among the answers',
      t: [
        [200, 80],
        ['200 over the body cap', 20],
      ],
      said: /^20 of 100 .*\(20 × 200 over the body cap\)/,
    },
  ] as Row[])('$name', ({ t, said }) => expectSaid(gapsInStream(tally(t)), said));
});
