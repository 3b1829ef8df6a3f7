// The scenarios' tallies (scenarios/lib/metrics.ts tally): a counter that records a zero once per VU
// and then only what it counts, so that a call lost or a server error costs k6 a sample, and a call
// that went well none (~5 % of k6's CPU a request, `npm run bench -- load`). Its count must still be
// in k6's summary, as 0, with no threshold naming it: a report reads "0 calls lost", never nothing.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, realK6, wrapperScriptTarget } from './support.js';

const k6 = await realK6();

const SCRIPT = `
import { tally, counter } from '${join(projectRoot, 'scenarios', 'lib', 'metrics.ts')}';
const never = tally('tally_never_counted');
const some = tally('tally_some_counted');
const plain = counter('plain_never_added');
export const options = { scenarios: { calls: { executor: 'per-vu-iterations', vus: 2, iterations: 3 } } };
export default function () {
  never.add(0);
  some.add(0);
  some.add(__ITER === 1 ? 2 : 0);
}
export function handleSummary(data) {
  const count = (name) => data.metrics[name] === undefined ? 'missing' : data.metrics[name].values.count;
  return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({
    never: count('tally_never_counted'),
    some: count('tally_some_counted'),
    plain: count('plain_never_added'),
  }) };
}
`;

describe.skipIf(k6 === undefined)('a tally in a k6 scenario (real k6)', () => {
  let target: Awaited<ReturnType<typeof wrapperScriptTarget>>;
  beforeAll(async () => (target = await wrapperScriptTarget(SCRIPT, (_req, res) => res.end())));
  afterAll(() => target?.close());

  it('is in the summary as 0 when it counted nothing, and counts what it was given', async () => {
    const { run } = await target.run(k6!.path, 'tally-test', 5);
    expect(run.exitCode, run.stderrTail).toBe(0);
    // A plain counter that never got a sample is not in the summary: what the tally's zero is for.
    expect(run.summary).toEqual({ never: 0, some: 4, plain: 'missing' });
  }, 90_000);
});
