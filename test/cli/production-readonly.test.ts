// Production is read-only by default (issue 23): against an environment named production, no
// command sends an authenticated business call unless business.<name>.production allows that
// endpoint, every request sent is in the report's audit trail, and production.max_requests is
// never exceeded. The emulator, not the harness, counts what arrived.
// Each command runs in-process (main with the test's own io; the bin's wiring is cli.test.ts's).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Observed } from '../../src/emulator/options.js';
import type { Report } from '../../src/report/model.js';
import { virtualClock } from '../../src/time/clock.js';
import { runCliInProcess } from '../helpers/cli.js';

/** What the emulator saw: every request, and the business calls it accepted with a token it issued. */
interface Seen {
  /** `METHOD /path`, in arrival order. */
  requests: string[];
  accepted: Array<{ path: string; body: unknown }>;
}

function counter(): { seen: Seen; observe: (o: Observed) => void } {
  const issued = new Set<string>();
  const seen: Seen = { requests: [], accepted: [] };
  const observe = ({ req, reply }: Observed) => {
    seen.requests.push(`${req.method} ${req.path}`);
    if (req.path === '/tokens' && reply.status === 200) {
      const token = (JSON.parse(reply.body) as { token?: unknown }).token;
      if (typeof token === 'string') issued.add(token);
    }
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    // Valid: a token this emulator issued, and the call was let in (not 401/403).
    if (
      req.path.startsWith('/v1/') &&
      bearer !== undefined &&
      issued.has(bearer) &&
      reply.status !== 401 &&
      reply.status !== 403
    ) {
      seen.accepted.push({ path: req.path, body: req.body.length ? JSON.parse(req.body.toString()) : undefined });
    }
  };
  return { seen, observe };
}

/** The audit says what each business call carried, and none carried a valid token. */
function expectReadOnlyAudit(r: Report): void {
  const business = r.production!.requests.filter((q) => q.path.startsWith('/v1/'));
  // Refused calls only: no token, forged ones (an expired one too when the run waited for expiry).
  expect([...new Set(business.map((q) => q.auth))].sort()).toEqual(expect.arrayContaining(['forged', 'none']));
  for (const q of business) expect(['none', 'forged', 'expired']).toContain(q.auth);
}

const SANDBOX_BODY = { amount: 125_000, note: 'sandbox payload' };
const PRODUCTION_BODY = { amount: 1, note: 'production payload' };

// Side by side (describe.concurrent): each test has an emulator of its own, which counts what it
// alone sent; the in-process runs mostly wait (token.same-before-expiry's span, k6).
describe.concurrent('production is read-only by default', () => {
  /** An emulator named production, what arrived at it, and a folder for the test's configs and reports. */
  async function production(onTestFinished: TestContext['onTestFinished']) {
    const { seen, observe } = counter();
    const emulator = await createEmulator({ port: 0, environments: ['production'], tokenTtlS: 86_400, observe });
    onTestFinished(() => emulator.close());
    const dir = mkdtempSync(join(tmpdir(), 'ces-prod-ro-'));
    const env = () => ({ PR_ID: emulator.credentials.clientId, PR_SECRET: emulator.credentials.clientSecret });
    /** A config naming the emulator as production, with `extra` YAML appended. */
    const config = (name: string, extra = '') => {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        `target: production\nenvironments:\n  production:\n    base_url: ${emulator.url}\n    client_id: \${PR_ID}\n    client_secret: \${PR_SECRET}\n    ca_file: ${emulator.caFile}\n` +
          `ledger: off\nhistory: off\nbusiness:\n  evaluation:\n    body: ${JSON.stringify(SANDBOX_BODY)}\n${extra}`,
      );
      return file;
    };
    return { emulator, dir, seen, env, config };
  }
  const report = (reportDir: string) => JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;

  it.for([
    { command: 'check', args: [], code: [0, 1] },
    { command: 'run', args: ['--duration', '1'], code: [0, 1] },
    { command: 'load', args: ['--duration', '1'], code: [2] },
    { command: 'ratelimit', args: [], code: [2] },
  ])(
    '$command sends no authenticated business call, and lists every request it sent',
    async ({ command, args, code }, { expect, onTestFinished }) => {
      const { emulator, dir, seen, env, config } = await production(onTestFinished);
      const reportDir = join(dir, `r-${command}`);
      const res = await runCliInProcess([command, '--config', config('plain'), '--report-dir', reportDir, ...args], {
        cwd: dir,
        env: env(),
        timeoutMs: 120_000,
      });
      expect(code, res.stdout + res.stderr).toContain(res.code);
      expect(seen.accepted).toEqual([]);
      if (res.code === 2) {
        // Refused before the first request.
        expect(seen.requests).toEqual([]);
        return;
      }
      const r = report(reportDir);
      // The audit trail is exactly what arrived: the same requests, as many of each.
      // …and the plain-text one of tls.no-plain-http, which a TLS-only service never reads as a request.
      const plain = r.production!.requests.filter((q) => q.plain_text);
      expect(plain.map((q) => `${q.method} ${q.path} ${q.auth}`)).toEqual(['POST /tokens/health_check none']);
      expect(r.production?.sent).toBe(seen.requests.length + 1);
      expect(
        r.production?.requests
          .filter((q) => !q.plain_text)
          .map((q) => `${q.method} ${q.path}`)
          .sort(),
      ).toEqual([...seen.requests].sort());
      expectReadOnlyAudit(r);
      expect(JSON.stringify(r.production)).not.toContain(emulator.credentials.clientSecret);
      const accepted = r.checks.find((c) => c.id === 'business.valid-token-accepted');
      expect(accepted?.status).toBe('skip');
      expect(accepted?.message).toMatch(
        /^not tested on production \(business\.evaluation\.production, business\.ach_transactions\.production are not allowed/,
      );
      const md = readFileSync(join(reportDir, 'report.md'), 'utf8');
      expect(md).toContain(`This run sent ${seen.requests.length + 1} requests to production`);
      expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toContain('id="production"');
    },
  );

  it('with business.evaluation.production allowed, only /v1/evaluation gets valid-token calls, with the production payload', async ({
    expect,
    onTestFinished,
  }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const reportDir = join(dir, 'r-optin');
    const allow = `    production: { allow: true, method: POST, body: ${JSON.stringify(PRODUCTION_BODY)} }\n`;
    const res = await runCliInProcess(['check', '--config', config('optin', allow), '--report-dir', reportDir], {
      cwd: dir,
      env: env(),
      timeoutMs: 120_000,
    });
    expect([0, 1], res.stdout + res.stderr).toContain(res.code);
    expect(seen.accepted.length).toBeGreaterThan(0);
    expect(seen.accepted).toEqual(seen.accepted.map(() => ({ path: '/v1/evaluation', body: PRODUCTION_BODY })));
    const r = report(reportDir);
    expect(r.production?.requests.filter((q) => !q.plain_text)).toHaveLength(seen.requests.length);
    const accepted = r.checks.find((c) => c.id === 'business.valid-token-accepted');
    expect(accepted?.status).toBe('pass');
    expect(accepted?.message).toContain('business.ach_transactions.production is not allowed');
  });

  it('never exceeds production.max_requests: what remains is not tested', async ({ expect, onTestFinished }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const reportDir = join(dir, 'r-budget');
    const res = await runCliInProcess(
      ['check', '--config', config('budget', 'production:\n  max_requests: 5\n'), '--report-dir', reportDir],
      { cwd: dir, env: env(), timeoutMs: 120_000 },
    );
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const r = report(reportDir);
    expect(r.production).toMatchObject({ max_requests: 5, sent: 5, budget_reached: true });
    // Five in all: what the emulator saw, and the plain-text one if it was among the first five.
    expect(seen.requests.length + r.production!.requests.filter((q) => q.plain_text).length).toBe(5);
    expect(r.checks.filter((c) => c.message.includes('production request budget 5 reached')).length).toBeGreaterThan(0);
  });

  it('--allow-production-load does not open a business endpoint production does not allow (load, ratelimit, k8s)', async ({
    expect,
    onTestFinished,
  }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const file = config('flag', 'rate_limit:\n  endpoint: business.evaluation\n');
    for (const command of ['load', 'ratelimit', 'k8s']) {
      const res = await runCliInProcess(
        [
          command,
          '--config',
          file,
          '--allow-production-load',
          ...(command === 'k8s' ? ['--out-dir', join(dir, 'k8s')] : []),
        ],
        { cwd: dir, env: env() },
      );
      expect(res.code, `${command}: ${res.stdout}${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(
        /against production calls \/v1\/evaluation.* with valid tokens; business\.evaluation\.production/,
      );
    }
    expect(seen.requests).toEqual([]);
  });

  it('load with --allow-production-load and both endpoints allowed: k6 sends the production payload, and its count is in the audit', async ({
    expect,
    onTestFinished,
  }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const reportDir = join(dir, 'r-load');
    const allow = `    production: { allow: true, body: ${JSON.stringify(PRODUCTION_BODY)} }\n  ach_transactions:\n    production: { allow: true, body: ${JSON.stringify(PRODUCTION_BODY)} }\n`;
    const res = await runCliInProcess(
      [
        'load',
        '--config',
        config('load', allow),
        '--allow-production-load',
        '--scenario',
        'throughput',
        '--duration',
        '2',
        '--rate',
        '2',
        '--vus',
        '1',
        '--report-dir',
        reportDir,
      ],
      { cwd: dir, env: env(), timeoutMs: 120_000 },
    );
    expect([0, 1], res.stdout + res.stderr).toContain(res.code);
    expect(seen.accepted.length, res.stdout + res.stderr).toBeGreaterThan(0);
    for (const call of seen.accepted) expect(call.body).toEqual(PRODUCTION_BODY);
    // The harness itself sent one request, the preflight's unauthenticated health check; k6 the rest.
    const audit = report(reportDir).production!;
    expect(audit).toMatchObject({ sent: 1, k6_requests: seen.requests.length - 1 });
    expect(audit.requests.map((q) => `${q.method} ${q.path} ${q.auth}`)).toEqual(['POST /tokens/health_check none']);
  });

  it.for([1, 2, 3, 5, 30])(
    'ratelimit with --allow-production-load that reaches production.max_requests %i: not tested, the report written, exit 1',
    async (budget, { expect, onTestFinished }) => {
      const { dir, seen, env, config } = await production(onTestFinished);
      const reportDir = join(dir, `r-ratelimit-budget-${budget}`);
      const allow = `    production: { allow: true, body: ${JSON.stringify(PRODUCTION_BODY)} }\nrate_limit:\n  endpoint: business.evaluation\nproduction:\n  max_requests: ${budget}\n`;
      const res = await runCliInProcess(
        [
          'ratelimit',
          '--config',
          config(`ratelimit-budget-${budget}`, allow),
          '--allow-production-load',
          '--report-dir',
          reportDir,
        ],
        { cwd: dir, env: env(), timeoutMs: 120_000 },
      );
      expect(res.code, res.stdout + res.stderr).toBe(1);
      expect(seen.requests.length).toBeLessThanOrEqual(budget);
      const r = report(reportDir);
      expect(r.production).toMatchObject({ max_requests: budget, budget_reached: true });
      expect(r.untested.map((u) => u.reason).join('\n')).toContain('production request budget');
      // Requests the budget held back were never sent: the probe's count is what production received.
      if (r.rate_limit) expect(r.rate_limit.requests_sent).toBeLessThanOrEqual(budget);
      const probeLine = /probe: (\d+) requests/.exec(res.stdout)?.[1];
      if (probeLine !== undefined) expect(Number(probeLine)).toBeLessThanOrEqual(budget);
      expect(res.stderr).not.toMatch(/unexpected|\bat .*\.js:\d+/i);
    },
  );

  it('an environment of another name marked production: true is read-only too', async ({ expect, onTestFinished }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const reportDir = join(dir, 'r-marked');
    const file = join(dir, 'marked.yaml');
    writeFileSync(
      file,
      readFileSync(config('plain'), 'utf8')
        .replace('target: production', 'target: live')
        .replace('  production:\n    base_url', '  live:\n    production: true\n    base_url'),
    );
    const res = await runCliInProcess(['check', '--config', file, '--report-dir', reportDir], {
      cwd: dir,
      env: env(),
      timeoutMs: 120_000,
    });
    expect([0, 1], res.stdout + res.stderr).toContain(res.code);
    expect(seen.accepted).toEqual([]);
    const r = report(reportDir);
    expect(r.target.environment).toBe('live');
    expect(r.production?.requests.filter((q) => !q.plain_text)).toHaveLength(seen.requests.length);
    expect(r.checks.find((c) => c.id === 'ratelimit.limit-enforced')?.message).toContain('--allow-production-load');
  });

  it('a bad production key is exit 2 naming its path, before any request', async ({ expect, onTestFinished }) => {
    const { dir, seen, env, config } = await production(onTestFinished);
    const res = await runCliInProcess(
      ['check', '--config', config('bad', '    production: { allow: yes, body: {} }\n')],
      {
        cwd: dir,
        env: env(),
      },
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/business\.evaluation\.production\.allow/);
    expect(seen.requests).toEqual([]);
  });
});

describe('--env production against the built-in emulator', () => {
  it('is read-only too: the audit lists no valid-token business call', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-prod-builtin-'));
    const reportDir = join(cwd, 'r');
    // On a virtual clock (the built-in emulator then runs in-process on it): the expiry passes in an instant.
    const res = await runCliInProcess(['check', '--env', 'production', '--report-dir', reportDir], {
      cwd,
      timeoutMs: 120_000,
      clock: virtualClock(),
    });
    expect([0, 1], res.stdout + res.stderr).toContain(res.code);
    const r = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;
    expect(r.target.environment).toBe('production');
    expect(r.production?.sent).toBeGreaterThan(0);
    expectReadOnlyAudit(r);
  });
});
