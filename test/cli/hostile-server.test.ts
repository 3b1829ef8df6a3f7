// `check` against a service that attacks its client, as a held-out bench would: answers that never
// end or never stop coming, headers without end, a token request redirected elsewhere, tokens made
// to break the next request, a handshake reset or refused with an alert, 429s whose Retry-After
// asks for 10^9 s or is garbage. Each run ends within its request timeout's reach, with the documented
// exit code and a report, and no output holds the client secret or a token the service handed out.
// Real TLS on 127.0.0.1 port 0; beside this file, unreachable.test.ts covers what fails before the
// first answer (silence, resets, closes) and test/http the client's own bounds.

import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, type ExpectStatic, type TestContext } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { virtualClock, type Clock } from '../../src/time/clock.js';
import { oneErrorLine, runCliInProcess } from '../helpers/cli.js';
import { closeLoopback, listenLoopback } from '../helpers/loopback-https.js';
import { createTestPki } from '../tls/pki.js';
import { CONFORMANT, startTcp } from '../tls/servers.js';

/**
 * The run's own set-up calls, when a stalled machine held one past the 1 s timeout: its first
 * validate call, or a token request (the concurrent cases' endless bodies beside it, CI ci-39b:
 * "POST /tokens got no complete answer within 1 s" in the case that goes silent after 50 answers).
 */
const SETUP_TIMED_OUT = [
  'GET /tokens/validate got no complete answer within 1 s',
  'POST /tokens got no complete answer within 1 s',
];

const pki = createTestPki();
const SECRET = 'hostile-secret-9d41c7e2';
const ID = 'hostile-client';
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) closeLoopback(s);
});

const parseOr = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Answers as §4 wants, with `token` as the token; `hostile` takes over POST /tokens when given. */
function service(token: string, hostile?: Handler): Handler {
  return (req, res, body) => {
    const json = (status: number, value: unknown) =>
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(value));
    if (req.url === '/tokens/health_check') return void res.writeHead(200).end(`alive ${new Date().toISOString()}`);
    if (req.url === '/tokens' && hostile) return hostile(req, res, body);
    if (req.url === '/tokens') {
      const c = (parseOr(body) as { token?: { client_id?: string; client_secret?: string } } | undefined)?.token;
      if (c?.client_id !== ID || c.client_secret !== SECRET) return json(401, { error: 'unauthorized' });
      return json(200, { token, expires_at: Math.floor(Date.now() / 1000) + 86_400, token_type: 'Bearer' });
    }
    if (req.headers.authorization !== `Bearer ${token}`) return json(401, { error: 'unauthorized' });
    return json(200, req.url === '/tokens/validate' ? { valid: true, message: 'token is valid' } : {});
  };
}

/**
 * An HTTPS server (§5.8's TLS) on 127.0.0.1, port 0, reading each request whole before `handle`.
 * Closed after the test; a concurrent test passes its own onTestFinished, since afterEach would close
 * the servers of the tests still running beside it.
 */
async function start(
  handle: Handler,
  seen: IncomingMessage[] = [],
  onTestFinished?: TestContext['onTestFinished'],
): Promise<string> {
  const server = createServer({ key: pki.keyPem, cert: pki.certPem, ...CONFORMANT }, (req, res) => {
    seen.push(req);
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => handle(req, res, body));
  });
  server.on('tlsClientError', () => {});
  if (onTestFinished) onTestFinished(() => closeLoopback(server));
  else servers.push(server);
  return listenLoopback(server);
}

/** A body that never ends, as fast as the client reads it. */
const endless = () =>
  new Readable({
    read() {
      this.push(Buffer.alloc(64 * 1024, 'x'));
    },
  });

/** Headers that never end: one more line every 50 ms. */
const headersWithoutEnd: Handler = (req) => {
  const socket = req.socket;
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n');
  const more = setInterval(() => (socket.destroyed ? clearInterval(more) : socket.write('x-more: 1\r\n')), 50);
  socket.once('close', () => clearInterval(more));
};

/** A body that trickles a byte every 100 ms, forever. */
const trickleForever: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  const more = setInterval(() => res.write(' '), 100);
  res.once('close', () => clearInterval(more));
};

const hugeHeader: Handler = (req) =>
  void req.socket.write(`HTTP/1.1 200 OK\r\nx-huge: ${'a'.repeat(1 << 20)}\r\n\r\n{}`);

/** A token of 1 MB, in an answer otherwise as §4.1 wants. */
const hugeToken: Handler = (_req, res) =>
  void res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      token: 'T'.repeat(1 << 20),
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
      token_type: 'Bearer',
    }),
  );

/**
 * Runs `check` (or `command`) against `url` (`--request-timeout` 10 s unless given); asserts the exit
 * code, that a report was written and that no output leaks (with a concurrent test's own `expect`, when given).
 * The default is for answers that do come (a header over the cap, a body cut at it): with the servers
 * in this process and the fast tier on 2 cores, 2 s once ran out before a 1 MB header's first bytes
 * were read, ETIMEDOUT instead of the overflow the case is about. The cases about hangs give 1 s.
 */
async function checkAgainst(
  url: string,
  codes: number[],
  secrets: string[],
  {
    clock,
    expect = globalExpect,
    requestTimeoutS = 10,
    command = ['check'],
    config,
  }: { clock?: Clock; expect?: ExpectStatic; requestTimeoutS?: number; command?: string[]; config?: string } = {},
) {
  const cwd = mkdtempSync(join(tmpdir(), 'ces-hostile-'));
  writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
  if (config !== undefined) writeFileSync(join(cwd, 'ces-harness.yaml'), config);
  const timeout = ['--request-timeout', String(requestTimeoutS)];
  const res = await runCliInProcess(
    [...command, '--base-url', url, '--ca', 'ca.pem', '--report-dir', 'report', ...timeout],
    { cwd, env: { CES_CLIENT_ID: ID, CES_CLIENT_SECRET: SECRET }, timeoutMs: 45_000, ...(clock ? { clock } : {}) },
  );
  expect(codes, res.stdout + res.stderr).toContain(res.code);
  const files = readdirSync(join(cwd, 'report'));
  expect(files).toEqual(expect.arrayContaining(['report.json', 'report.md', 'junit.xml', 'report.html']));
  // Every file the run left (the report, a ledger or history beside it), and the terminal.
  const left = readdirSync(cwd, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(cwd, f)).isFile());
  const outputs = [res.stdout, res.stderr, ...left.map((f) => readFileSync(join(cwd, f), 'utf8'))];
  for (const secret of [SECRET, ...secrets]) for (const text of outputs) expect(text.includes(secret)).toBe(false);
  // NO_COLOR: an escape sequence on the terminal could only have come from the service.
  expect(res.stdout + res.stderr).not.toMatch(/\u001b/);
  const report = JSON.parse(readFileSync(join(cwd, 'report', 'report.json'), 'utf8')) as Report;
  return { res, report, check: (id: string) => report.checks.find((c) => c.id === id)! };
}

const TOKEN = 'tk_hostile_0123456789abcdef0123456789abcdef';
const globalExpect = expect;

describe('check against a hostile POST /tokens', () => {
  // The answers that never complete wait out the request timeout twice (the first phase's POST
  // /tokens, then token.issue's): 1 s, the least it can be, rather than the default 10.
  const cases: Array<{ name: string; hostile: Handler; said: RegExp; timeoutS?: number }> = [
    {
      name: 'headers that never end (one more line every 50 ms)',
      said: /^error: POST \/tokens got no complete answer within 1 s \(ETIMEDOUT\)$/,
      timeoutS: 1,
      hostile: headersWithoutEnd,
    },
    {
      name: 'a 1 MB header',
      said: /^error: POST \/tokens answered with headers over the \d+ bytes the client reads \(UND_ERR_HEADERS_OVERFLOW\)$/,
      hostile: hugeHeader,
    },
    {
      name: 'a body that never ends, as fast as it is read',
      said: /^fail: POST \/tokens returned 200 <application\/json, 65536 chars, sha256:\w+>: not a JSON object/,
      hostile: (_req, res) => void endless().pipe(res.writeHead(200, { 'content-type': 'application/json' })),
    },
    {
      // Under the body cap for an hour, and never idle long enough for a between-chunks timeout.
      name: 'a body that trickles a byte every 100 ms, forever',
      said: /^error: POST \/tokens got no complete answer within 1 s \(ETIMEDOUT\)$/,
      timeoutS: 1,
      hostile: trickleForever,
    },
    {
      name: 'a 100 MB body with its Content-Length',
      said: /^fail: POST \/tokens returned 200 <application\/json, 65536 chars, sha256:\w+>: not a JSON object/,
      hostile: (_req, res) => {
        let left = 100 * 1024 * 1024;
        const body = new Readable({
          read() {
            const n = Math.min(left, 64 * 1024);
            left -= n;
            this.push(n ? Buffer.alloc(n, 'x') : null);
          },
        });
        body.pipe(
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) }),
        );
      },
    },
    {
      name: 'a 200 whose body stops after its first byte',
      said: /^error: POST \/tokens got no complete answer within 1 s \(ETIMEDOUT\)$/,
      timeoutS: 1,
      hostile: (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).write('{'),
    },
    {
      name: 'a 1 MB token',
      said: /^fail: POST \/tokens returned 200 <application\/json, 65536 chars, sha256:\w+>: not a JSON object/,
      hostile: hugeToken,
    },
  ];

  // Side by side: three of them wait out the 1 s request timeout twice (the preflight's, then token.issue's).
  it.concurrent.for(cases)(
    '$name: ends, exit 1, a report, no leak',
    async ({ hostile, said, timeoutS }, { expect, onTestFinished }) => {
      const url = await start(service(TOKEN, hostile), [], onTestFinished);
      const { report, check } = await checkAgainst(url, [1], [TOKEN], { expect, requestTimeoutS: timeoutS });
      expect(report.verdict).toBe('fail');
      const issue = check('token.issue');
      expect(`${issue.status}: ${issue.message}`).toMatch(said);
    },
  );
});

describe('check against a validate whose 200 never ends', () => {
  it('the validate checks fail, the burst is not tested for want of a valid answer (never "raise max_rps"), exit 1', async () => {
    const url = await start((req, res, body) =>
      req.url?.startsWith('/tokens/validate')
        ? void endless().pipe(res.writeHead(200, { 'content-type': 'application/json' }))
        : service(TOKEN)(req, res, body),
    );
    const { report, check } = await checkAgainst(url, [1], [TOKEN]);
    expect(report.verdict).toBe('fail');
    expect(check('validate.valid-token').status).toBe('fail');
    const burst = check('ratelimit.limit-enforced');
    expect(`${burst.status}: ${burst.message}`).toMatch(
      /^skip: not tested: \d+ of \d+ burst requests got no valid answer \(last: GET \/tokens\/validate answered 200 with a body over the 65536-byte cap/,
    );
    expect(burst.message).not.toContain('max_rps');
  });
});

describe('a token request redirected elsewhere', () => {
  // Elsewhere counts connections, whatever they speak: following the redirect at all connects to it.
  it.each([
    { name: 'another origin', to: (port: number) => `https://127.0.0.1:${port}/tokens` },
    { name: 'plain http', to: (port: number) => `http://127.0.0.1:${port}/tokens` },
  ])('to $name: nothing follows, the credentials least of all', async ({ to }) => {
    let followed = 0;
    const elsewhere = net.createServer((s) => (followed++, s.destroy()));
    await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
    try {
      const port = (elsewhere.address() as AddressInfo).port;
      const url = await start(service(TOKEN, (_req, res) => void res.writeHead(307, { location: to(port) }).end()));
      const { check } = await checkAgainst(url, [1], [TOKEN]);
      expect(followed).toBe(0);
      expect(check('token.issue').message).toMatch(/^POST \/tokens returned 307 /);
    } finally {
      elsewhere.close();
    }
  });
});

describe('a token made to break the request that carries it', () => {
  it.concurrent.for([
    { name: 'CRLF and a header', token: `${TOKEN}\r\nx-injected: 1`, named: 'CR, LF' },
    { name: 'a NUL', token: `${TOKEN}\u0000x`, named: 'NUL' },
    { name: 'a terminal escape', token: `${TOKEN}\u001b[2J\u001b[31m`, named: '0x1b' },
  ])(
    '$name: token.issue fails, nothing sends it, a report, no leak',
    async ({ token, named }, { expect, onTestFinished }) => {
      const seen: IncomingMessage[] = [];
      const url = await start(service(token), seen, onTestFinished);
      const { check } = await checkAgainst(url, [1], [token, TOKEN], { expect });
      for (const req of seen) expect(req.headers['x-injected']).toBeUndefined();
      // The service issued a token no client can send: a finding, and the checks that need it say why they could not.
      expect(check('token.issue')).toMatchObject({ status: 'fail' });
      expect(check('token.issue').message).toContain(`token holds ${named}, which no Authorization header can carry`);
      expect(check('validate.valid-token').message).toMatch(
        new RegExp(
          `^GET /tokens/validate not sent: token tk_[0-9a-f]{8} holds ${named}, .*\\(ERR_UNSENDABLE_TOKEN\\)$`,
        ),
      );
    },
  );
});

describe('a handshake broken off by the service', () => {
  it('reads the ClientHello, then resets: exit 3, one line, before any check', async () => {
    const server = await startTcp((s) => s.once('data', () => s.resetAndDestroy()));
    try {
      const cwd = mkdtempSync(join(tmpdir(), 'ces-hostile-'));
      const res = await runCliInProcess(['check', '--base-url', server.url, '--report-dir', 'report'], {
        cwd,
        env: { CES_CLIENT_ID: ID, CES_CLIENT_SECRET: SECRET },
        timeoutMs: 40_000,
      });
      expect(res.code, res.stdout + res.stderr).toBe(3);
      expect(oneErrorLine(res)).toMatch(
        /ECONNRESET: the connection was closed or reset before the TLS handshake finished/,
      );
      expect(res.stderr).not.toContain(SECRET);
    } finally {
      await server.close();
    }
  });

  it('answers every handshake with an alert (no suite in common): the TLS checks say so, exit 1, a report', async () => {
    const server = createServer(
      { key: pki.keyPem, cert: pki.certPem, ...CONFORMANT, ciphers: 'TLS_AES_128_CCM_SHA256' },
      (_req, res) => void res.end(),
    );
    server.on('tlsClientError', () => {});
    servers.push(server);
    const { check } = await checkAgainst(await listenLoopback(server), [1], []);
    expect(check('tls.allowed-suites-accepted').status).toBe('fail');
    expect(check('token.issue').status).toBe('error');
  });
});

describe('a service that answers 429 to everything but the health check', () => {
  it.each(['1000000000', '-1', 'soon'])(
    'with Retry-After %s: never waited for, the run ends with exit 1 and a report',
    async (retryAfter) => {
      const url = await start((req, res) =>
        req.url === '/tokens/health_check'
          ? void res.writeHead(200).end(`alive ${new Date().toISOString()}`)
          : void res
              .writeHead(429, { 'retry-after': retryAfter, 'content-type': 'application/json' })
              .end('{"error":"rate limited"}'),
      );
      // The client's backoff (up to 60 s per request) on a virtual clock: the waits take no real time.
      const { check } = await checkAgainst(url, [1], [], { clock: virtualClock() });
      // Not judged: not tested, never an error of the service (ratelimit.recovers judges a limit that never lifts).
      // The checks take turns in the limit once it refuses (limit-pacer.ts): tries or the budget, whichever ends first.
      expect(check('token.issue').status).toBe('skip');
      expect(check('token.issue').message).toMatch(
        /^not tested: POST \/tokens was still rate-limited \(429\) after \d+ tries and \d+ s of waiting, past (10 retries|the wait budget of 60 s)/,
      );
    },
  );
});

describe('ratelimit against a hostile probe endpoint (tokens.validate) or token request', () => {
  // What the probe meets before any k6 proof: each ends within a request timeout or two, as a line
  // saying the rate limit was not tested (exit 1), with the report and without a leak.
  const onValidate =
    (hostile: Handler): Handler =>
    (req, res, body) =>
      req.url?.startsWith('/tokens/validate') ? hostile(req, res, body) : service(TOKEN)(req, res, body);
  const cases: Array<{ name: string; handle: Handler; said: RegExp; config?: string }> = [
    {
      // The probe's own endpoint the token request (rate_limit.endpoint): each answer cut at the cap.
      name: 'POST /tokens probed (tokens.issue): a 200 whose body never ends',
      said: /^tokens.issue: only 0 of \d+ probe answers came from the working endpoint \((.*, )?\d+ × 200 over the body cap(, .*)?\)/,
      handle: service(
        TOKEN,
        (_req, res) => void endless().pipe(res.writeHead(200, { 'content-type': 'application/json' })),
      ),
      config: 'rate_limit:\n  endpoint: tokens.issue\n',
    },
    {
      // No declared length: a business body that never ends is no answer either.
      name: 'POST /v1/evaluation probed (business.evaluation): a 200 whose body never ends',
      said: /^business.evaluation: only 0 of \d+ probe answers came from the working endpoint \((.*, )?\d+ × 200 over the body cap(, .*)?\)/,
      handle: (req, res, body) =>
        req.url === '/v1/evaluation'
          ? void endless().pipe(res.writeHead(200, { 'content-type': 'application/json' }))
          : service(TOKEN)(req, res, body),
      config: 'rate_limit:\n  endpoint: business.evaluation\n',
    },
    {
      name: 'validate: headers that never end',
      said: /^GET \/tokens\/validate got no complete answer within 1 s/,
      handle: onValidate(headersWithoutEnd),
    },
    {
      name: 'validate: a body that trickles forever',
      said: /^GET \/tokens\/validate got no complete answer within 1 s/,
      handle: onValidate(trickleForever),
    },
    {
      // Each answer is cut at the body cap: not an answer, so never counted as one the limit admitted.
      // On a loaded machine a request may also time out behind the endless bodies ("1 × no answer", 30 Nov).
      name: 'validate: a 200 whose body never ends',
      // The tally names the more common first: 19 × no answer before 16 × 200 over the body cap (CI land83).
      said: /^tokens.validate: only 0 of \d+ probe answers came from the working endpoint \((\d+ × no answer, )?\d+ × 200 over the body cap(, \d+ × no answer)?\); the service must end its answers/,
      handle: onValidate(
        (_req, res) => void endless().pipe(res.writeHead(200, { 'content-type': 'application/json' })),
      ),
    },
    {
      // Answers, then goes silent mid-probe (a crash, a tarpit): what the probe saw before is no "no limit".
      // On a loaded machine some of the 50 answers come back after the 1 s timeout too, among the
      // silent requests, so no 20 in a row may fail before the time runs out (CI land35, and here
      // under stress-ng: 66 of 115 unanswered): then the count of requests left unanswered says it.
      name: 'validate: 50 answers, then none',
      said: /^tokens.validate: (the probe stopped after 20 requests in a row got no valid answer \(last: GET \/tokens\/validate got no complete answer within 1 s\): what it saw before measures no limit|(only )?\d+ of \d+ probe (requests got no valid answer|answers came from the working endpoint) \(\d+ × no answer\))/,
      handle: ((answered = 0) =>
        onValidate((req, res, body) => (++answered > 50 ? undefined : service(TOKEN)(req, res, body))))(),
    },
    {
      // One request in three left without an answer: never 20 in a row, never half, yet no stream to read "no limit" from.
      name: 'validate: one request in three left without an answer',
      said: /^tokens.validate: \d+ of \d+ probe requests got no valid answer \(\d+ × no answer\)/,
      handle: ((seen = 0) =>
        onValidate((req, res, body) => (++seen % 3 === 0 ? undefined : service(TOKEN)(req, res, body))))(),
    },
    {
      name: 'validate: a 1 MB header',
      said: /^GET \/tokens\/validate answered with headers over the \d+ bytes the client reads/,
      handle: onValidate(hugeHeader),
    },
    {
      // Content-Length 1000, five bytes, then the connection closed: an answer cut short is none.
      name: 'validate: a 200 cut short',
      said: /^GET \/tokens\/validate: the connection was closed before the answer was complete \(other side closed\)$/,
      handle: onValidate((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' }).write('{"val');
        setTimeout(() => res.socket?.destroy(), 20);
      }),
    },
    {
      name: 'POST /tokens: a 1 MB token',
      said: /^the probe could not start: POST \/tokens with the configured credentials returned 200 <application\/json, 65536 chars/,
      handle: service(TOKEN, hugeToken),
    },
  ];
  it.concurrent.for(cases)(
    '$name: not tested, exit 1, a report, no leak',
    async ({ handle, said, config }, { expect, onTestFinished }) => {
      const url = await start(handle, [], onTestFinished);
      const started = Date.now();
      const { report } = await checkAgainst(url, [1], [TOKEN, 'T'.repeat(64)], {
        expect,
        requestTimeoutS: 1,
        command: ['ratelimit', '--max-duration', '5', '--history', 'off'],
        ...(config ? { config } : {}),
      });
      expect(Date.now() - started).toBeLessThan(15_000);
      const untested = report.verdict_reasons.find((r) => r.kind === 'not_tested');
      // Or the run's first validate call itself timed out: static checks and the rest of the fast
      // tier beside these concurrent cases once stalled the machine past the 1 s timeout for three
      // of them at once (CI land98); not tested, exit 1, a report, no leak, for the reason it met.
      const text = untested?.text ?? '';
      // Not where the token request is the case's subject: its timeout there would be the defect.
      const setUp = SETUP_TIMED_OUT.filter((t) => !(t.startsWith('POST') && said.source.includes('POST')));
      if (!setUp.includes(text)) expect(text).toMatch(said);
    },
  );
});

describe('ratelimit probing a business endpoint whose answers are larger than the body cap', () => {
  // §4.4 leaves business payloads to the user: a 200 of 100 KB with its Content-Length is the
  // endpoint working (check judges its status alone), cut at the cap only because the harness reads no more.
  it('a declared 100 KB body is an answer the limit admitted, never "over the body cap"', async () => {
    const big = JSON.stringify({ items: 'x'.repeat(100 * 1024) });
    const url = await start((req, res, body) =>
      req.url === '/v1/evaluation' && req.headers.authorization === `Bearer ${TOKEN}`
        ? void res
            .writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) })
            .end(big)
        : service(TOKEN)(req, res, body),
    );
    const { report } = await checkAgainst(url, [0, 1], [TOKEN], {
      command: ['ratelimit', '--max-duration', '5', '--history', 'off'],
      config: 'rate_limit:\n  endpoint: business.evaluation\n',
    });
    expect(report.rate_limit?.endpoint).toBe('business.evaluation');
    expect(report.rate_limit?.no_limit_up_to).toBeDefined();
    for (const reason of report.verdict_reasons) expect(reason.text).not.toContain('over the body cap');
  });
});

describe('ratelimit against a validate that answers 429 from the first request', () => {
  it.each(['1000000000', '-1', 'Thu, 01 Jan 1970 00:00:00 GMT', 'Fri, 01 Jan 2100 00:00:00 GMT', 'soon'])(
    'Retry-After %s: not tested, with why and what to do; exit 1, never a limit of 0 passed',
    async (retryAfter) => {
      const url = await start((req, res, body) =>
        req.url?.startsWith('/tokens/validate')
          ? void res
              .writeHead(429, { 'retry-after': retryAfter, 'content-type': 'application/json' })
              .end('{"error":"rate limited"}')
          : service(TOKEN)(req, res, body),
      );
      // The client's wait-out of the set-up 429s on a virtual clock: the waits take no real time.
      const { report } = await checkAgainst(url, [1], [TOKEN], {
        clock: virtualClock(),
        command: ['ratelimit', '--max-duration', '5', '--history', 'off'],
      });
      expect(report.verdict).toBe('fail');
      const untested = report.verdict_reasons.find((r) => r.kind === 'not_tested');
      expect(untested?.text ?? '').toMatch(
        /^the probe could not start: GET \/tokens\/validate was still rate-limited \(429\) after 11 tries .*; every set-up request was refused: the limit is spent .*ratelimit\.recovers.*run again once it has lifted$/,
      );
    },
  );
});
