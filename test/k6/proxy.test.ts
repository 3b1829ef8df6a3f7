// k6 honours HTTPS_PROXY and NO_PROXY itself (Go's net/http), and the harness lets them reach it
// (k6-env.ts scrubs only CES_* and K6_*). Go never proxies localhost or a loopback address, so the
// target here is a made-up name, ces-proxy.test, with a certificate for it: through the proxy, the
// proxy tunnels it to 127.0.0.1; with NO_PROXY naming it, k6's `hosts` option maps it there. No
// name is ever looked up in DNS and no byte leaves loopback.

import { createServer, type Server } from 'node:https';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runScenario } from '../../src/k6/run.js';
import { startConnectProxy, type ConnectProxy } from '../helpers/connect-proxy.js';
import { createTestPki } from '../tls/pki.js';
import { realK6 } from './support.js';

const k6 = await realK6();
const NAME = 'ces-proxy.test';

const SCRIPT = `
import http from 'k6/http';
export const options = { vus: 1, iterations: 1, hosts: { '${NAME}': '127.0.0.1' } };
let status = 0;
export default function () { status = http.get(__ENV.CES_URL, { timeout: '10s' }).status; }
export function handleSummary(data) { return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({ reqs: data.metrics.http_reqs.values.count, failed: data.metrics.http_req_failed.values.passes }) }; }
`;

describe.skipIf(k6 === undefined)('k6 behind HTTPS_PROXY (real k6, real CONNECT proxy)', () => {
  const pki = createTestPki({ dnsNames: [NAME], ipAddresses: [] });
  let server: Server;
  let proxy: ConnectProxy;
  let dir: string;
  let url: string;
  beforeAll(async () => {
    server = createServer({ key: pki.keyPem, cert: pki.certPem, minVersion: 'TLSv1.3' }, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('alive');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://${NAME}:${(server.address() as { port: number }).port}/tokens/health_check`;
    dir = await mkdtemp(join(tmpdir(), 'ces-k6-proxy-'));
    await writeFile(join(dir, 'script.js'), SCRIPT);
    await writeFile(join(dir, 'ca.pem'), pki.caPem);
  });
  beforeEach(async () => {
    await proxy?.close();
    proxy = await startConnectProxy();
  });
  afterAll(async () => {
    await proxy?.close();
    server?.closeAllConnections();
    server?.close();
  });

  const run = (env: Record<string, string>) =>
    runScenario({
      k6Path: k6!.path,
      bundle: join(dir, 'script.js'),
      env: { CES_URL: url },
      summaryFile: join(dir, 'summary.json'),
      caFile: join(dir, 'ca.pem'),
      timeoutMs: 60_000,
      baseEnv: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
    });

  it('HTTPS_PROXY: k6 tunnels through the proxy and still trusts only the given CA', async () => {
    const res = await run({ HTTPS_PROXY: proxy.url });
    expect(res.exitCode, res.stderrTail).toBe(0);
    expect(res.summary).toEqual({ reqs: 1, failed: 0 });
    expect(proxy.connects).toEqual([new URL(url).host]);
  }, 90_000);

  it('NO_PROXY naming the host: k6 connects directly', async () => {
    const res = await run({ HTTPS_PROXY: proxy.url, NO_PROXY: NAME });
    expect(res.exitCode, res.stderrTail).toBe(0);
    expect(res.summary).toEqual({ reqs: 1, failed: 0 });
    expect(proxy.connects).toEqual([]);
  }, 90_000);
});
