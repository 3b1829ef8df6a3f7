// The k6 scenarios' endpoint wrappers (scenarios/lib/endpoints.ts) make each endpoint's parameters
// once per VU and set only the changing headers at each call: every request must still carry its
// own headers (this call's token and Idempotency-Key, the Accept-Encoding), and a call's own tags
// and expected statuses must stay with that call. A tiny script built from the wrappers calls a TLS
// server on loopback that keeps what it is sent.

import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot, realK6, wrapperScriptTarget } from './support.js';

const k6 = await realK6();

const lib = (file: string) => join(projectRoot, 'scenarios', 'lib', file);
const SCRIPT = `
import { readConfig } from '${lib('config.ts')}';
import { healthCheck, postTokens, validateToken } from '${lib('endpoints.ts')}';
const cfg = readConfig();
const creds = { clientId: 'id', clientSecret: 'secret-value' };
const WRONG = { expect: [401] };
export const options = {
  scenarios: { calls: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } },
  // Listed so the summary carries these submetrics (k6 only summarises those with thresholds).
  thresholds: {
    'http_reqs{probe:one}': ['count>=0'],
    'http_reqs{endpoint:tokens.health_check}': ['count>=0'],
    'http_req_failed{endpoint:tokens.issue}': ['rate>=0'],
  },
};
export default function () {
  healthCheck(cfg);
  healthCheck(cfg, { tags: { probe: 'one' } });
  healthCheck(cfg);
  validateToken(cfg, 'token-a');
  validateToken(cfg, 'token-b');
  postTokens(cfg, creds, WRONG);
  postTokens(cfg, creds, WRONG);
  postTokens(cfg, creds);
}
export function handleSummary(data) {
  const m = data.metrics;
  return { [__ENV.CES_SUMMARY_FILE]: JSON.stringify({
    probe: m['http_reqs{probe:one}'].values.count,
    health: m['http_reqs{endpoint:tokens.health_check}'].values.count,
    issueFailed: m['http_req_failed{endpoint:tokens.issue}'].values.passes,
  }) };
}
`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

describe.skipIf(k6 === undefined)("the endpoint wrappers' parameters, made once per VU (real k6)", () => {
  const seen: Seen[] = [];
  let target: Awaited<ReturnType<typeof wrapperScriptTarget>>;
  beforeAll(
    async () =>
      (target = await wrapperScriptTarget(SCRIPT, (req, res) => {
        if (seen.length < 100) seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
        req.resume();
        // Every POST /tokens is refused: only the calls that expect it may count it as no failure.
        res.statusCode = req.url === '/tokens' ? 401 : 200;
        res.end(req.url === '/tokens' ? '{"error":"unauthorized"}' : '{"status":"ok"}');
      })),
  );
  afterAll(() => target?.close());

  it("sends each call's own headers, and keeps a call's tags and expected statuses to that call", async () => {
    const { run } = await target.run(k6!.path, 'endpoint-params-test', 5);
    expect(run.exitCode, run.stderrTail).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /tokens/health_check',
      'POST /tokens/health_check',
      'POST /tokens/health_check',
      'GET /tokens/validate',
      'GET /tokens/validate',
      'POST /tokens',
      'POST /tokens',
      'POST /tokens',
    ]);
    for (const s of seen) expect(s.headers['accept-encoding']).toBe('gzip, deflate, br');
    // A POST has a key of its own at every call, the tagged copy's included; a GET none.
    const keys = seen.filter((s) => s.method === 'POST').map((s) => s.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(6);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{32}$/);
    const validates = seen.filter((s) => s.url === '/tokens/validate');
    expect(validates.map((s) => s.headers.authorization)).toEqual(['Bearer token-a', 'Bearer token-b']);
    for (const s of validates) expect(s.headers['idempotency-key']).toBeUndefined();
    for (const s of seen.filter((s) => s.url === '/tokens')) expect(s.headers['content-type']).toBe('application/json');

    const summary = run.summary as { probe: number; health: number; issueFailed: number };
    // The probe tag went with its one call only; all three health checks kept their endpoint tag.
    expect(summary.probe).toBe(1);
    expect(summary.health).toBe(3);
    // The two 401s expected by WRONG are no failure; the one without it is.
    expect(summary.issueFailed).toBe(1);
  }, 90_000);
});
