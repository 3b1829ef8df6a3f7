// Bad input gets one right line: each case of issue 8 ("bad input gets one right line") kept as a
// regression, run through the built CLI against real servers on 127.0.0.1 port 0. A case states
// the exit code, the one line on stderr, and that no request reached the target when the input
// was wrong before any request should be sent.

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { oneErrorLine, runCliInProcess } from '../helpers/cli.js';
import { startRefusingServer, type RefusingServer } from '../helpers/refusing-server.js';
import { createTestPki } from '../tls/pki.js';
import type { TestPki } from '../tls/pki.js';

const work = () => mkdtempSync(join(tmpdir(), 'ces-bad-input-'));
const CREDENTIALS = { CES_CLIENT_ID: 'client-id', CES_CLIENT_SECRET: 'client-secret-value' };

const pki = createTestPki();
const caLines = pki.caPem.trim().split('\n');

describe('numbers out of range: exit 2, one line naming the range', () => {
  const cases: Array<{ args: string[]; config?: string; line: RegExp }> = [
    {
      args: ['check', '--token-lifetime', '1e23'],
      line: /--token-lifetime must be a whole number of seconds from 1 to 172800, got 1e23$/,
    },
    {
      args: ['check', '--token-lifetime', '0'],
      line: /--token-lifetime must be a whole number of seconds from 1 to 172800, got 0$/,
    },
    // A negative number is a value out of range, not a missing value.
    {
      args: ['check', '--token-lifetime', '-5'],
      line: /--token-lifetime must be a whole number of seconds from 1 to 172800, got -5$/,
    },
    {
      args: ['check', '--token-lifetime=2.5'],
      line: /--token-lifetime must be a whole number of seconds from 1 to 172800, got 2\.5$/,
    },
    {
      args: ['check', '--expiry-wait', '0x10'],
      line: /--expiry-wait must be a whole number of seconds from 0 to 172800, got 0x10$/,
    },
    {
      args: ['check', '--clock-tolerance', '301'],
      line: /--clock-tolerance must be a number of seconds from 0 to 300, got 301$/,
    },
    {
      args: ['check', '--clock-tolerance', 'Infinity'],
      line: /--clock-tolerance must be a number of seconds from 0 to 300, got Infinity$/,
    },
    {
      args: ['load', '--segments', '0'],
      line: /--segments must be a whole number of k6 processes from 1 to 64, got 0$/,
    },
    { args: ['serve', '--port', '70000'], line: /--port must be a port number from 0 to 65535, got 70000$/ },
    {
      args: ['serve', '--token-ttl', '-1'],
      line: /--token-ttl must be a whole number of seconds from 1 to 172800, got -1$/,
    },
    {
      args: ['serve', '--limiter', 'leaky'],
      line: /--limiter leaky is not a limiter the emulator runs; give one of bucket, fixed, sliding, counter, queue$/,
    },
    {
      args: ['serve', '--limiter', 'fixed', '--rate-limit', '1', '--window', '0.2'],
      line: /--rate-limit 1 over a 0\.2 s window admits less than one request; raise --rate-limit or --window$/,
    },
    { args: ['serve', '--clients', '0'], line: /--clients must be a whole number of clients from 1 to 100, got 0$/ },
    {
      args: ['check'],
      config: 'rate_limit:\n  second_client: { client_id: x }\n',
      line: /rate_limit\.second_client\.client_secret/,
    },
    {
      args: ['k8s', '--parallelism', '1.5'],
      line: /--parallelism must be a whole number of pods from 1 to 1000, got 1\.5$/,
    },
    {
      args: ['check'],
      config: 'expect:\n  token_lifetime_s: 1e23\n',
      line: /ces-harness\.yaml: expect\.token_lifetime_s: must be a whole number of seconds from 1 to 172800, got 1e\+23$/,
    },
    {
      args: ['check'],
      config: 'expect:\n  clock_tolerance_s: -1\n',
      line: /expect\.clock_tolerance_s: must be a number of seconds from 0 to 300, got -1$/,
    },
    {
      args: ['check'],
      config: 'rate_limit:\n  max_requests: 0\n',
      line: /rate_limit\.max_requests: must be a whole number of requests from 1 to 1000000, got 0$/,
    },
    {
      args: ['check'],
      config: 'load:\n  vus: 100000\n',
      line: /load\.vus: must be a whole number of virtual users from 1 to 10000, got 100000$/,
    },
  ];
  it.each(cases)('$args $config', async ({ args, config, line }) => {
    const cwd = work();
    if (config !== undefined) writeFileSync(join(cwd, 'ces-harness.yaml'), config);
    const res = await runCliInProcess(args, { cwd });
    expect(res.code, res.stderr).toBe(2);
    expect(oneErrorLine(res)).toMatch(line);
    expect(res.stdout).toBe('');
  });
});

describe('a CA file that is not a usable certificate: exit 2 before any request', () => {
  let server: RefusingServer;
  beforeAll(async () => {
    server = await startRefusingServer(pki);
  });
  afterAll(async () => server.close());

  const cases: Array<{ name: string; pem: string; line: RegExp }> = [
    {
      name: 'no PEM block',
      pem: 'not a certificate\n',
      line: /holds no PEM certificate \(no -----BEGIN CERTIFICATE----- line\); give the CA certificate in PEM form$/,
    },
    {
      name: 'truncated',
      pem: caLines.slice(0, 5).join('\n'),
      line: /is cut short: the CERTIFICATE block at line 1 has no -----END CERTIFICATE----- line; copy the whole certificate again$/,
    },
    {
      name: 'garbage inside the markers',
      pem: [caLines[0], 'garbage!garbage', caLines.at(-1)].join('\n'),
      line: /has a certificate block at line 1 that is not valid base64 \(line 2\)/,
    },
    {
      name: 'base64 that is no certificate',
      pem: [caLines[0], ...caLines.slice(1, 4), caLines.at(-1)].join('\n'),
      line: /has a block at line 1 that decodes to no X\.509 certificate/,
    },
    { name: 'a private key', pem: pki.keyPem, line: /holds no certificate, only PRIVATE KEY/ },
  ];
  it.each(cases)('--ca: $name', async ({ pem, line }) => {
    const cwd = work();
    writeFileSync(join(cwd, 'ca.pem'), pem);
    const res = await runCliInProcess(['check', '--base-url', server.url, '--ca', 'ca.pem', '--report-dir', 'report'], {
      cwd,
      env: CREDENTIALS,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(oneErrorLine(res)).toMatch(new RegExp(`^ces-harness: --ca: ${cwd}/ca\\.pem ${line.source}`));
    expect(server.connections()).toBe(0);
    expect(readdirSync(cwd)).toEqual(['ca.pem']);
  });

  it('ca_file in the config names its key', async () => {
    const cwd = work();
    writeFileSync(join(cwd, 'ca.pem'), caLines.slice(0, 5).join('\n'));
    writeFileSync(
      join(cwd, 'ces-harness.yaml'),
      `environments:\n  sandbox:\n    base_url: ${server.url}\n    client_id: \${CES_CLIENT_ID}\n    client_secret: \${CES_CLIENT_SECRET}\n    ca_file: ca.pem\n`,
    );
    const res = await runCliInProcess(['check'], { cwd, env: CREDENTIALS });
    expect(res.code).toBe(2);
    expect(oneErrorLine(res)).toMatch(/^ces-harness: environments\.sandbox\.ca_file: .*\/ca\.pem is cut short/);
    expect(server.connections()).toBe(0);
  });
});

describe('a certificate that cannot be trusted: exit 3, saying what is wrong with it', () => {
  const DAY = 86_400_000;
  const cases: Array<{ name: string; pki: TestPki; trust: boolean; line: RegExp; notLine?: RegExp }> = [
    {
      name: 'issued for another host',
      pki: createTestPki({ dnsNames: ['api.example.test'], ipAddresses: [] }),
      trust: true,
      line: /is for api\.example\.test, not 127\.0\.0\.1; use a URL with a host name it names/,
      notLine: /--ca/,
    },
    {
      name: 'expired',
      pki: createTestPki({ notBefore: new Date(Date.now() - 30 * DAY), notAfter: new Date(Date.now() - DAY) }),
      trust: true,
      line: /expired on \d{4}-\d\d-\d\dT[\d:]+Z; the service must renew it/,
    },
    {
      name: 'not valid yet',
      pki: createTestPki({ notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 30 * DAY) }),
      trust: true,
      line: /is not valid until .*; check this machine's clock/,
      notLine: /--ca/,
    },
    {
      name: 'from a CA not given',
      pki,
      trust: false,
      line: /is issued by ces-harness test CA, which this machine does not trust \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); pass --ca FILE/,
    },
  ];
  it.each(cases)('$name', async ({ pki: p, trust, line, notLine }) => {
    const server = await startRefusingServer(p);
    try {
      const cwd = work();
      writeFileSync(join(cwd, 'ca.pem'), p.caPem);
      const res = await runCliInProcess(
        ['check', '--base-url', server.url, ...(trust ? ['--ca', 'ca.pem'] : []), '--report-dir', 'report'],
        { cwd, env: CREDENTIALS },
      );
      expect(res.code, res.stderr).toBe(3);
      const text = oneErrorLine(res);
      expect(text).toMatch(
        new RegExp(`^ces-harness: the certificate of ${server.url.replace(/\./g, '\\.')} ${line.source}`),
      );
      if (notLine) expect(text).not.toMatch(notLine);
    } finally {
      await server.close();
    }
  });
});

describe('control characters from the service are shown escaped, on the terminal and in every report', () => {
  // A 401 body with a colour change, a window-title sequence, a NUL and a bidi override.
  const BODY = '{"error":"\x1b[31mred\x1b[0m\x1b]0;owned\x07 nul\u0000 \u202eevil"}';
  let server: RefusingServer;
  beforeAll(async () => {
    server = await startRefusingServer(pki, BODY);
  });
  afterAll(async () => server.close());

  it('no raw ESC, BEL, NUL or bidi override anywhere; the escapes are there instead', async () => {
    const cwd = work();
    writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
    const res = await runCliInProcess(
      [
        'check',
        '--base-url',
        server.url,
        '--ca',
        'ca.pem',
        '--only',
        'token.issue',
        '--report-dir',
        'report',
        '--ledger',
        'off',
        // Raw control characters make the body invalid JSON, which is quoted only as its shape by
        // default: --verbose-bodies quotes it whole, which is where the escaping must hold.
        '--verbose-bodies',
      ],
      { cwd, env: CREDENTIALS },
    );
    expect(res.code, res.stderr).toBe(1);
    const outputs: Record<string, string> = { stdout: res.stdout, stderr: res.stderr };
    for (const file of ['report.json', 'report.md', 'report.html', 'junit.xml'])
      outputs[file] = readFileSync(join(cwd, 'report', file), 'utf8');
    for (const [where, text] of Object.entries(outputs)) {
      expect(text, where).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    }
    expect(res.stdout).toContain('\\x1b[31mred\\x1b[0m\\x1b]0;owned\\x07 nul\\u0000 \\u202eevil');
    // The 401 makes the run say the credentials were refused, quoting the body (escaped) in that line.
    const report = JSON.parse(outputs['report.json']!) as { untested: Array<{ stage: string; reason: string }> };
    expect(report.untested.find((u) => u.stage === 'credentials')?.reason).toContain('\\x1b[31mred');
    expect(outputs['report.md']).toContain('\\x1b');
    expect(outputs['report.html']).toContain('\\x1b[31mred');
    expect(outputs['junit.xml']).toContain('\\u0000');
  });
});

describe('a client_secret written in the config', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 86_400 });
  });
  afterAll(async () => emulator.close());

  const config = (optIn: boolean) =>
    [
      optIn ? 'allow_literal_secrets: true' : '',
      'environments:',
      '  sandbox:',
      `    base_url: ${emulator.url}`,
      `    client_id: ${emulator.credentials.clientId}`,
      `    client_secret: ${emulator.credentials.clientSecret}`,
      `    ca_file: ${emulator.caFile}`,
      'ledger: "off"',
    ].join('\n');

  it.each([
    { optIn: false, warned: true },
    { optIn: true, warned: false },
  ])('allow_literal_secrets: $optIn → warned: $warned', async ({ optIn, warned }) => {
    const cwd = work();
    writeFileSync(join(cwd, 'ces-harness.yaml'), config(optIn));
    const res = await runCliInProcess(['check', '--only', 'health.no-credentials', '--report-dir', 'report'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    const warning =
      /environments\.sandbox\.client_secret is written in the file; keep secrets out of files: export CES_SANDBOX_CLIENT_SECRET and write client_secret: \$\{CES_SANDBOX_CLIENT_SECRET\}/;
    const files = ['report.json', 'report.md', 'report.html', 'junit.xml'].map((f) =>
      readFileSync(join(cwd, 'report', f), 'utf8'),
    );
    if (warned) {
      expect(oneErrorLine(res)).toMatch(
        new RegExp(`^ces-harness: warning: config .*ces-harness\\.yaml: ${warning.source}`),
      );
      // report.md escapes the underscore.
      for (const text of files) expect(text).toMatch(/environments\.sandbox\.client\\?_secret is written in the file/);
      expect(JSON.parse(files[0]!).notes).toHaveLength(1);
    } else {
      expect(res.stderr).toBe('');
      for (const text of files) expect(text).not.toMatch(/is written in the file/);
    }
    for (const text of [res.stdout, res.stderr, ...files])
      expect(text).not.toContain(emulator.credentials.clientSecret);
  });
});
