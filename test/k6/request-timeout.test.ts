// --request-timeout / request_timeout_s reaches the k6 scenarios: their endpoint wrappers
// (scenarios/lib/endpoints.ts) give up on a service that never answers after that long, not after
// a fixed 10 s. A tiny script built from the same wrappers calls a TLS server on loopback that
// takes the request and stays silent.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, realK6, wrapperScriptTarget } from './support.js';

const k6 = await realK6();

const SCRIPT = `
import { readConfig } from '${join(projectRoot, 'scenarios', 'lib', 'config.ts')}';
import { healthCheck } from '${join(projectRoot, 'scenarios', 'lib', 'endpoints.ts')}';
const cfg = readConfig();
export const options = { vus: 1, iterations: 1 };
export default function () { healthCheck(cfg); }
export function handleSummary(data) {
  return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({ failed: data.metrics.http_req_failed.values.passes, maxMs: data.metrics.http_req_duration.values.max }) };
}
`;

describe.skipIf(k6 === undefined)('the request timeout in the k6 scenarios (real k6)', () => {
  let target: Awaited<ReturnType<typeof wrapperScriptTarget>>;
  // Takes every request and never answers it.
  beforeAll(async () => (target = await wrapperScriptTarget(SCRIPT, (req) => req.resume())));
  afterAll(() => target?.close());

  it('CES_REQUEST_TIMEOUT_S=1: a silent service fails the request after about a second, not ten', async () => {
    const { run, env } = await target.run(k6!.path, 'timeout-test', 1);
    expect(env['CES_REQUEST_TIMEOUT_S']).toBe('1');
    expect(run.exitCode, run.stderrTail).toBe(0);
    const summary = run.summary as { failed: number; maxMs: number };
    expect(summary.failed).toBe(1);
    // The fixed 10 s of before would put this at 10 000 ms or more; 1 s plus any delay is far below.
    expect(summary.maxMs).toBeLessThan(5_000);
  }, 90_000);
});
