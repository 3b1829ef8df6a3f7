// k6 reads every answer body whole and has no size cap to set: a service whose body never ends
// fills k6's memory for as long as the request timeout lets the call run (7 GB resident in 38 s
// against `load` at --request-timeout 2). The harness stops k6 past a memory cap
// (src/k6/memory-watch.ts); here, with the real k6 and a 300 MiB cap, against a health check whose
// 200 streams without end over TLS on loopback, under a request timeout of a minute.

import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProblem } from '../../src/k6/scenarios.js';
import { projectRoot, realK6, wrapperScriptTarget } from './support.js';

const k6 = await realK6();

const SCRIPT = `
import { readConfig } from '${join(projectRoot, 'scenarios', 'lib', 'config.ts')}';
import { healthCheck } from '${join(projectRoot, 'scenarios', 'lib', 'endpoints.ts')}';
const cfg = readConfig();
export const options = { vus: 1, iterations: 1 };
export default function () { healthCheck(cfg); }
`;

const endless = () =>
  new Readable({
    read() {
      this.push(Buffer.alloc(64 * 1024, 'x'));
    },
  });

describe.skipIf(k6 === undefined)('k6 against a body without end (real k6)', () => {
  let target: Awaited<ReturnType<typeof wrapperScriptTarget>>;
  beforeAll(
    async () =>
      (target = await wrapperScriptTarget(SCRIPT, (req, res) => {
        req.resume();
        res.on('error', () => undefined);
        endless().pipe(res.writeHead(200, { 'content-type': 'text/plain' }));
      })),
  );
  afterAll(() => target?.close());

  it('is stopped at its memory cap within seconds, and the run says why', async () => {
    const started = Date.now();
    const cap = 300 * 2 ** 20;
    const { run } = await target.run(k6!.path, 'endless-body', 60, cap);
    expect(run.memoryCappedAt, run.stderrTail).toBe(cap);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(runProblem(run, 60_000)).toMatch(/^k6 stopped: its memory passed its cap of 300 MiB/);
  }, 90_000);
});
