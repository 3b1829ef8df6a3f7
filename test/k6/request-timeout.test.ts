// --request-timeout / request_timeout_s reaches the k6 scenarios: their endpoint wrappers
// (scenarios/lib/endpoints.ts) give up on a service that never answers after that long, not after
// a fixed 10 s. A tiny script built from the same wrappers calls a TLS server on loopback that
// takes the request and stays silent.

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
export const options = { vus: 1, iterations: 1 };
export default function () { healthCheck(cfg); }
export function handleSummary(data) {
  return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({ failed: data.metrics.http_req_failed.values.passes, maxMs: data.metrics.http_req_duration.values.max }) };
}
`;

describe.skipIf(k6 === undefined)('the request timeout in the k6 scenarios (real k6)', () => {
  const pki = createTestPki();
  let server: Server;
  let script: Awaited<ReturnType<typeof bundleWrapperScript>>;
  let baseUrl: string;
  beforeAll(async () => {
    // Takes every request and never answers it.
    server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req) => req.resume());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `https://localhost:${(server.address() as { port: number }).port}`;
    script = await bundleWrapperScript(SCRIPT, pki.caPem);
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });

  it('CES_REQUEST_TIMEOUT_S=1: a silent service fails the request after about a second, not ten', async () => {
    const env = wrapperScriptEnv(baseUrl, 'timeout-test', 1);
    expect(env['CES_REQUEST_TIMEOUT_S']).toBe('1');
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
    const summary = run.summary as { failed: number; maxMs: number };
    expect(summary.failed).toBe(1);
    // The fixed 10 s of before would put this at 10 000 ms or more; 1 s plus any delay is far below.
    expect(summary.maxMs).toBeLessThan(5_000);
  }, 90_000);
});
