// The Idempotency-Key the k6 scenarios send on POSTs (scenarios/lib/endpoints.ts): one of its own
// for every request, across VUs and setup(), 32 hex digits. A tiny script built from the same
// wrappers calls a TLS server on loopback that keeps the keys it is sent.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, realK6, wrapperScriptTarget } from './support.js';

const k6 = await realK6();

const SCRIPT = `
import { readConfig } from '${join(projectRoot, 'scenarios', 'lib', 'config.ts')}';
import { healthCheck } from '${join(projectRoot, 'scenarios', 'lib', 'endpoints.ts')}';
const cfg = readConfig();
export const options = { scenarios: { keys: { executor: 'per-vu-iterations', vus: 3, iterations: 4 } } };
export function setup() { healthCheck(cfg); }
export default function () { healthCheck(cfg); }
export function handleSummary() { return {}; }
`;

describe.skipIf(k6 === undefined)('the Idempotency-Key of the k6 scenarios (real k6)', () => {
  const keys: Array<string | undefined> = [];
  let target: Awaited<ReturnType<typeof wrapperScriptTarget>>;
  beforeAll(
    async () =>
      (target = await wrapperScriptTarget(SCRIPT, (req, res) => {
        if (keys.length < 100) keys.push(req.headers['idempotency-key'] as string | undefined);
        req.resume();
        res.end('{"status":"ok"}');
      })),
  );
  afterAll(() => target?.close());

  it('gives every request a key of its own, in every VU and in setup()', async () => {
    const { run } = await target.run(k6!.path, 'idempotency-key-test', 5);
    expect(run.exitCode, run.stderrTail).toBe(0);
    // setup()'s request and 3 VUs × 4 iterations.
    expect(keys).toHaveLength(13);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(13);
  }, 90_000);
});
