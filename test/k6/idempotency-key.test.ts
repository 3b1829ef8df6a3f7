// The Idempotency-Key the k6 scenarios send on POSTs (scenarios/lib/endpoints.ts): one of its own
// for every request, across VUs and setup(), 32 hex digits. A tiny script built from the same
// wrappers calls a TLS server on loopback that keeps the keys it is sent.

import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/k6/run.js';
import { createTestPki } from '../tls/pki.js';
import { bundleWrapperScript, projectRoot, realK6, wrapperScriptEnv } from './support.js';

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
  const pki = createTestPki();
  const keys: Array<string | undefined> = [];
  let server: Server;
  let script: Awaited<ReturnType<typeof bundleWrapperScript>>;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
      if (keys.length < 100) keys.push(req.headers['idempotency-key'] as string | undefined);
      req.resume();
      res.end('{"status":"ok"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `https://localhost:${(server.address() as { port: number }).port}`;
    script = await bundleWrapperScript(SCRIPT, pki.caPem);
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('gives every request a key of its own, in every VU and in setup()', async () => {
    const env = wrapperScriptEnv(baseUrl, 'idempotency-key-test', 5);
    const run = await runScenario({
      k6Path: k6!.path,
      bundle: script.script,
      env,
      summaryFile: join(script.dir, 'summary.json'),
      caFile: script.caFile,
      timeoutMs: 60_000,
      baseEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
    });
    expect(run.exitCode, run.stderrTail).toBe(0);
    // setup()'s request and 3 VUs × 4 iterations.
    expect(keys).toHaveLength(13);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(13);
  }, 90_000);
});
