// `ces-harness cutover` against an emulator pair: each readiness finding produced on demand by a
// per-environment difference, READY (exit 0) for a conformant pair, and no authenticated business
// call ever reaching production. The emulator, not the harness, counts what arrived.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import type { CutoverReport } from '../../src/cutover/report-model.js';
import { runCli } from '../helpers/cli.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ces-cutover-'))));

interface Pair {
  emulator: Emulator;
  /** Business calls production let in with a token it issued. */
  productionAccepted: string[];
  /** Requests that reached each environment, `METHOD /path`. */
  sandboxRequests: string[];
  productionRequests: string[];
}

async function pair(options: Omit<EmulatorOptions, 'port' | 'environments' | 'observe'> = {}): Promise<Pair> {
  const issued = new Set<string>();
  const productionAccepted: string[] = [];
  const sandboxRequests: string[] = [];
  const productionRequests: string[] = [];
  let productionPort = '';
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox', 'production'],
    tokenTtlS: 86_400,
    ...options,
    observe: ({ req, reply }) => {
      if (req.path === '/tokens' && reply.status === 200) {
        const token = (JSON.parse(reply.body) as { token?: unknown }).token;
        if (typeof token === 'string') issued.add(token);
      }
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const toProduction = String(req.headers.host ?? '').endsWith(`:${productionPort}`);
      (toProduction ? productionRequests : sandboxRequests).push(`${req.method} ${req.path}`);
      if (
        toProduction &&
        req.path.startsWith('/v1/') &&
        bearer !== undefined &&
        issued.has(bearer) &&
        reply.status !== 401 &&
        reply.status !== 403
      )
        productionAccepted.push(req.path);
    },
  });
  productionPort = new URL(emulator.environments[1]!.url).port;
  return { emulator, productionAccepted, sandboxRequests, productionRequests };
}

/** A config naming both environments, `${VAR}` credentials, and each environment's own CA file. */
function config(
  name: string,
  e: Emulator,
  history = 'off',
  maxRequests = 1000,
  extra = '',
): { file: string; env: Record<string, string> } {
  const [sandbox, production] = e.environments;
  const file = join(dir, `${name}.yaml`);
  const block = (env: typeof sandbox, prefix: string) =>
    `  ${env!.name}:\n    base_url: ${env!.url}\n    client_id: \${${prefix}_ID}\n    client_secret: \${${prefix}_SECRET}\n    ca_file: ${env!.caFile}\n`;
  writeFileSync(
    file,
    `target: sandbox\nenvironments:\n${block(sandbox, 'SB')}${block(production, 'PR')}ledger: off\nhistory: ${history}\nproduction:\n  max_requests: ${maxRequests}\nrate_limit:\n  max_rps: 100\n${extra}`,
  );
  return {
    file,
    env: {
      SB_ID: sandbox!.credentials.clientId,
      SB_SECRET: sandbox!.credentials.clientSecret,
      PR_ID: production!.credentials.clientId,
      PR_SECRET: production!.credentials.clientSecret,
    },
  };
}

async function cutover(name: string, p: Pair, args: string[] = [], history = 'off', extra = '') {
  const { file, env } = config(name, p.emulator, history, 1000, extra);
  const reportDir = join(dir, `r-${name}`);
  const res = await runCli(['cutover', '--config', file, '--report-dir', reportDir, ...args], {
    cwd: dir,
    env,
    timeoutMs: 120_000,
  });
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as CutoverReport;
  return { res, report, reportDir };
}

const LOAD = ['--allow-production-load'];

describe('ces-harness cutover', () => {
  const started: Emulator[] = [];
  afterAll(async () => Promise.all(started.map((e) => e.close())));

  it.each([
    {
      name: 'ca',
      options: { perEnvironment: { production: { ca: 'other' as const } } },
      finding: 'certificate-ca',
      line: /production's certificate is issued by .*\(production\).*, sandbox's by /,
    },
    {
      name: 'expiry',
      options: { perEnvironment: { production: { certificateDays: 5 } } },
      finding: 'certificate-expiry',
      line: /production's certificate expires on \d{4}-\d\d-\d\d \([45] days\), within the 14-day cutover window/,
    },
    {
      name: 'error-body',
      options: { perEnvironment: { production: { faults: ['wrong-error-body' as const] } } },
      finding: 'error-body',
      line: /a wrong secret gets 401 `\{"message":"Unauthorized"\}` on production, 401 `\{"error":"unauthorized"\}` on sandbox/,
    },
    {
      name: 'isolation',
      options: { faults: ['shared-credentials' as const] },
      finding: 'credential-isolation',
      line: /credentials are not isolated/,
    },
    {
      name: 'validate-method',
      options: { perEnvironment: { production: { validateMethods: ['POST' as const] } } },
      finding: 'validate-method',
      line: /^validate accepts POST on production, GET and POST on sandbox/,
    },
    {
      name: 'ratelimit',
      options: { perEnvironment: { production: { rateLimit: { rps: 5, burst: 10 } } } },
      finding: 'rate-limit',
      line: /production limits after \d+ requests, sandbox after \d+/,
    },
  ])('$name: NOT READY, led by the $finding finding, exit 1', async ({ name, options, finding, line }) => {
    const p = await pair(options);
    started.push(p.emulator);
    const { res, report, reportDir } = await cutover(name, p, LOAD);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(report.cutover.verdict).toBe('NOT READY');
    expect(report.cutover.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual([finding]);
    expect(report.cutover.breaking).toEqual([expect.stringMatching(line)]);
    expect(res.stdout).toMatch(/^NOT READY: 1 thing\(s\) will break/m);
    expect(readFileSync(join(reportDir, 'report.md'), 'utf8')).toMatch(
      /# Cutover readiness: NOT READY[\s\S]*Will break a client integrated against sandbox/,
    );
    expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toContain('id="breaking"');
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toMatch(new RegExp(`name="${finding}">\\s*<failure`));
    expect(p.productionAccepted).toEqual([]);
  });

  // Both leaves issued by one intermediate under the root both ca files hold; production sends its
  // leaf alone. The harness would stop a check of production with exit 3; cutover reports it.
  it("intermediate not sent: production's untrusted chain is the certificate-trust finding (NOT READY, exit 1, not 3), and sandbox's pass still runs", async () => {
    const p = await pair({
      profiles: ['intermediate-ca'],
      perEnvironment: { production: { intermediate: 'omitted' } },
    });
    started.push(p.emulator);
    const { res, report, reportDir } = await cutover('intermediate', p, LOAD);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(report.cutover.verdict).toBe('NOT READY');
    expect(report.cutover.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual([
      'certificate-trust',
    ]);
    expect(report.cutover.breaking).toEqual([
      "production's certificate does not verify (the issuer is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE); the leaf is issued by ces-harness emulator intermediate CA): " +
        "a client's trust store may not hold its CA (sandbox's certificate names the same issuer and verifies, so production likely does not send the intermediate certificate sandbox sends); no check ran on production",
    ]);
    expect(res.stdout).toMatch(/^NOT READY: 1 thing\(s\) will break/m);
    expect(report.environments['production']).toMatchObject({
      checks: [],
      untested: [expect.stringMatching(/did not verify, so no request was sent/)],
    });
    expect(report.environments['sandbox']!.checks.find((c) => c.id === 'tls.certificate-valid')).toMatchObject({
      status: 'pass',
    });
    expect(report.cutover.facts.sandbox.certificate_issuer).toMatch(/CN=ces-harness emulator intermediate CA/);
    expect(readFileSync(join(reportDir, 'report.md'), 'utf8')).toMatch(
      /\| certificate verifies \| no: the issuer is not trusted \(UNABLE\\_TO\\_VERIFY\\_LEAF\\_SIGNATURE\) \| yes \|/,
    );
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toMatch(/name="certificate-trust">\s*<failure/);
    expect(p.productionRequests).toEqual([]);
  });

  // Production's credentials may be shared with other clients, so a token with an hour left at first
  // sight may have been issued a day ago: its lifetime is unknown until a rollover (the ledger of a
  // later run). A shorter lifetime measured at a rollover is breaking (test/cutover/verdict.test.ts).
  it('lifetime: a short remaining life at first sight is NOT TESTED, never NOT READY on a guess', async () => {
    const p = await pair({ perEnvironment: { production: { tokenTtlS: 3_600 } } });
    started.push(p.emulator);
    const { res, report } = await cutover('lifetime', p, LOAD);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(report.cutover.verdict).toBe('NOT TESTED');
    expect(report.cutover.findings.filter((f) => f.status === 'breaking')).toEqual([]);
    expect(JSON.stringify(report.cutover)).toMatch(
      /token lifetime: not known on production .*lifetime cannot be told from it/,
    );
    expect(p.productionAccepted).toEqual([]);
  });

  // Waiting out production's first token (it expires within expect.expiry_wait_s) bounds the next
  // one's issue time by the rollover, so its lifetime is measured, not guessed.
  it("lifetime: production's token expiring within the expiry wait is waited out, and the lifetime measured at the rollover is NOT READY", async () => {
    const p = await pair({ perEnvironment: { production: { tokenTtlS: 12 } } });
    started.push(p.emulator);
    const { res, report } = await cutover('lifetime-rollover', p, LOAD, 'off', 'expect:\n  expiry_wait_s: 30\n');
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(report.cutover.verdict).toBe('NOT READY');
    expect(report.cutover.findings.filter((f) => f.status === 'breaking').map((f) => f.id)).toEqual(['token-lifetime']);
    expect(report.cutover.breaking).toEqual([
      expect.stringMatching(
        /^production's tokens live 1[0-4] s, sandbox's 86\d{3} s: a client that refreshes on sandbox's schedule sends expired tokens$/,
      ),
    ]);
    const lifetime = report.environments['production']!.checks.find((c) => c.id === 'token.lifetime');
    expect(lifetime?.message).toMatch(
      /measured at a rollover|issued after \d+, when the token before it expired \(this run/,
    );
    expect(p.productionAccepted).toEqual([]);
  });

  it('a conformant pair is READY (exit 0), side by side fact by fact, and production got no authenticated business call', async () => {
    const p = await pair();
    started.push(p.emulator);
    const { res, report, reportDir } = await cutover('ready', p, LOAD);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(report.cutover).toMatchObject({ verdict: 'READY', breaking: [], not_tested: [] });
    const { production, sandbox } = report.cutover.facts;
    for (const facts of [production, sandbox]) {
      expect(facts).toMatchObject({
        token_format: 'opaque',
        token_type: '"Bearer"',
        validate_methods: 'GET and POST',
        credentials_isolated: 'yes',
        tls_negotiated: expect.stringMatching(/\(TLSv1\.3\)$/),
      });
      expect(Math.abs(facts.lifetime_s! - 86_400)).toBeLessThanOrEqual(5);
      expect(facts.accepted_before_limit).toBeGreaterThan(0);
    }
    expect(production.certificate_issuer).toBe(sandbox.certificate_issuer);
    // The audit is every request production received, sandbox's isolation probe included.
    const audited = report.production!.requests.filter((q) => !q.plain_text).map((q) => `${q.method} ${q.path}`);
    expect(audited.sort()).toEqual([...p.productionRequests].sort());
    expect(report.production).toMatchObject({ max_requests: 1000, budget_reached: false });
    expect(p.productionAccepted).toEqual([]);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).not.toContain('<failure');
    expect(readFileSync(join(reportDir, 'report.md'), 'utf8')).toMatch(
      /\| token lifetime \(s\) \| 86\d{3} \| 86\d{3} \|/,
    );
    for (const file of ['report.json', 'report.md', 'report.html', 'junit.xml']) {
      const text = readFileSync(join(reportDir, file), 'utf8');
      for (const e of p.emulator.environments) expect(text).not.toContain(e.credentials.clientSecret);
    }
  });

  it("a conformant difference (production's health timestamp an HTTP-date) is READY (exit 0), listed under differs, side by side", async () => {
    const p = await pair({ perEnvironment: { production: { profiles: ['health-http-date'] } } });
    started.push(p.emulator);
    const { res, report, reportDir } = await cutover('health-format', p, LOAD);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(report.cutover).toMatchObject({ verdict: 'READY', breaking: [], not_tested: [] });
    expect(report.cutover.differences).toEqual([
      'health timestamp format: HTTP-date d Mon d d:d:d GMT on production, ISO 8601 d-d-d d:d:d UTC on sandbox',
    ]);
    expect(res.stdout).toMatch(/^ {2}differs: health timestamp format: HTTP-date/m);
    expect(readFileSync(join(reportDir, 'report.md'), 'utf8')).toContain(
      '| health timestamp format | HTTP-date d Mon d d:d:d GMT | ISO 8601 d-d-d d:d:d UTC |',
    );
  });

  it("without --allow-production-load production's limit is not measured: NOT TESTED, exit 1, with the reason", async () => {
    const p = await pair();
    started.push(p.emulator);
    const { res, report } = await cutover('untested', p);
    expect(res.code, res.stdout + res.stderr).toBe(1);
    expect(report.cutover.verdict).toBe('NOT TESTED');
    expect(report.cutover.not_tested).toEqual([
      expect.stringMatching(/^production's rate limit: not measured \(pass --allow-production-load/),
    ]);
    expect(p.productionAccepted).toEqual([]);
  });

  it("--sandbox-from-history H: sandbox's last stored check instead of a pass (no request to sandbox); a fresh pass when none is stored", async () => {
    const p = await pair();
    started.push(p.emulator);
    const history = join(dir, 'history.jsonl');
    // The stored check first: a fresh pass would leave sandbox's token cached, and a check after it
    // rightly finds that token older than it can explain.
    const { file, env } = config('history-check', p.emulator, history);
    const check = await runCli(
      ['check', '--config', file, '--env', 'sandbox', '--report-dir', join(dir, 'r-history-check')],
      { cwd: dir, env, timeoutMs: 120_000 },
    );
    expect(check.code, check.stdout + check.stderr).toBe(0);
    p.sandboxRequests.length = 0;
    const { res, report } = await cutover('history', p, [...LOAD, '--sandbox-from-history', '24'], history);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(report.cutover.sandbox_source).toMatch(
      new RegExp(
        `^sandbox's last check stored in ${history}, started \\S+ \\(within 24 h\\); no check pass on sandbox$`,
      ),
    );
    // Only production's isolation probe: production's credentials offered to sandbox, once.
    expect(p.sandboxRequests).toEqual(['POST /tokens']);
    expect(report.cutover.facts.sandbox).toMatchObject({
      token_format: 'opaque',
      validate_methods: 'GET and POST',
      credentials_isolated: 'yes',
    });
    expect(report.cutover.verdict).toBe('READY');

    const empty = join(dir, 'empty-history.jsonl');
    const none = await cutover('history-none', p, [...LOAD, '--sandbox-from-history', '24'], empty);
    expect(none.report.cutover.sandbox_source).toBe(
      `a full check pass on sandbox in this run (no run of sandbox stored in ${empty} within 24 h)`,
    );
    expect(p.sandboxRequests.length).toBeGreaterThan(10);
  });

  it('a config with one environment is refused before the first request (exit 2)', async () => {
    const file = join(dir, 'one.yaml');
    writeFileSync(
      file,
      'environments:\n  sandbox:\n    base_url: https://127.0.0.1:1\n    client_id: ${SB_ID}\n    client_secret: ${SB_SECRET}\n',
    );
    const res = await runCli(['cutover', '--config', file], {
      cwd: dir,
      env: { SB_ID: 'id', SB_SECRET: 'secret-value-1234' },
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/cutover needs a production and a sandbox environment/);
  });
});
