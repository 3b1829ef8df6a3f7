// Lost or misleading output (issue 20), each case as a reviewer reproduced it, through the built CLI
// against real servers on 127.0.0.1 port 0: a wrong input gets exit 2 and one line before the
// first request (counted at the server), and what the service says never becomes a link in report.md.

import { existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneErrorLine, runCliInProcess } from '../helpers/cli.js';
import { checkArgs, startRefusingServer, type RefusingServer } from '../helpers/refusing-server.js';
import { createTestPki } from '../tls/pki.js';

const work = () => mkdtempSync(join(tmpdir(), 'ces-lost-output-'));
const CREDENTIALS = { CES_CLIENT_ID: 'client-id', CES_CLIENT_SECRET: 'client-secret-value' };

// The leaf's common name is a URL too: certificate names reach the report as well.
const pki = createTestPki({ commonName: 'https://evil.example/cert' });

let server: RefusingServer;
beforeAll(async () => {
  // A backtick in the description breaks out of the harness's own `quote` of the body.
  server = await startRefusingServer(
    pki,
    JSON.stringify({
      error: 'invalid_client',
      error_description:
        'see https://evil.example/x, `https://evil.example/y` or www.evil.example; mail admin@evil.example',
    }),
  );
});
afterAll(async () => server?.close());

/** A config of the given environments (name → base URL), trusting ca.pem. */
function configOf(environments: Record<string, string>): string {
  const envs = Object.entries(environments).map(
    ([name, url]) =>
      `  ${name}:\n    base_url: ${url}\n    client_id: \${CES_CLIENT_ID}\n    client_secret: \${CES_CLIENT_SECRET}\n    ca_file: ca.pem\n`,
  );
  return `environments:\n${envs.join('')}`;
}

/** A folder with ca.pem and, if given, ces-harness.yaml. */
function project(config?: string): string {
  const cwd = work();
  writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
  if (config !== undefined) writeFileSync(join(cwd, 'ces-harness.yaml'), config);
  return cwd;
}

describe('wrong input: exit 2, one line, no request', () => {
  const cases: Array<{
    name: string;
    args: string[] | ((url: string) => string[]);
    config?: (url: string) => string;
    line: (url: string, cwd: string) => string | RegExp;
  }> = [
    {
      name: '--base-url with a query',
      args: (url) => ['check', '--base-url', `${url}/?q=1`, '--ca', 'ca.pem'],
      line: (url) =>
        `ces-harness: --base-url ${url}/ has a query (?…) after it; give the service's base URL alone, like https://sandbox.example.test/ces`,
    },
    {
      name: '--base-url with a fragment',
      args: (url) => ['check', '--base-url', `${url}/#frag`, '--ca', 'ca.pem'],
      line: (url) =>
        `ces-harness: --base-url ${url}/ has a fragment (#…) after it; give the service's base URL alone, like https://sandbox.example.test/ces`,
    },
    {
      name: 'k8s --base-url with a query',
      args: (url) => ['k8s', '--base-url', `${url}?`, '--out-dir', 'manifests'],
      line: (url) =>
        `ces-harness: --base-url ${url} has a query (?…) after it; give the service's base URL alone, like https://sandbox.example.test/ces`,
    },
    {
      name: 'base_url in the config with a query',
      args: ['check'],
      config: (url) =>
        `environments:\n  sandbox:\n    base_url: ${url}/ces?key=k\n    client_id: x\n    client_secret: \${CES_CLIENT_SECRET}\n`,
      line: (url) =>
        `ces-harness: environments.sandbox.base_url ${url}/ces has a query (?…) after it; give the service's base URL alone, like https://sandbox.example.test/ces`,
    },
    {
      name: 'sandbox and production on one URL (case, default port and trailing slash aside)',
      args: ['check'],
      config: () =>
        'environments:\n' +
        '  sandbox:\n    base_url: https://CES.example.test:443/api/\n    client_id: x\n    client_secret: ${CES_CLIENT_SECRET}\n' +
        '  production:\n    base_url: https://ces.example.test/api\n    client_id: y\n    client_secret: ${CES_CLIENT_SECRET}\n',
      line: () =>
        'ces-harness: environments sandbox and production have the same base URL (https://ces.example.test/api), so they are one service and cannot be tested apart; give each environment its own base URL',
    },
    {
      name: 'ratelimit of a "sandbox" that is production',
      args: ['ratelimit'],
      // The sandbox given production's URL (with a trailing slash), as a copy-paste mistake would.
      config: (url) => configOf({ sandbox: `${url}/`, production: url }),
      line: (url) =>
        `ces-harness: environments sandbox and production have the same base URL (${url}), so they are one service and cannot be tested apart; give each environment its own base URL`,
    },
    {
      name: 'an alias to no anchor',
      args: ['check'],
      config: () => 'environments:\n  sandbox:\n    base_url: *b\n',
      line: (_url, cwd) =>
        `ces-harness: config ${cwd}/ces-harness.yaml: line 3, column 15: an alias (*name) with no anchor (&name) before it; define the anchor first, or write the value out`,
    },
    {
      name: 'an alias bomb',
      args: ['check'],
      config: () =>
        [
          'a: &a [x, x, x, x, x, x, x, x, x]',
          'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
          'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
          'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
          'e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
          '',
        ].join('\n'),
      line: (_url, cwd) =>
        `ces-harness: config ${cwd}/ces-harness.yaml: line 4, column 8: aliases that expand to too many nodes (a "billion laughs" bomb?); write the values out, or use fewer nested aliases`,
    },
  ];
  it.each(cases)('$name', async ({ args, config, line }) => {
    const url = server.url;
    const cwd = project(config?.(url));
    const before = server.requests();
    const res = await runCliInProcess(typeof args === 'function' ? args(url) : args, { cwd, env: CREDENTIALS });
    expect(res.code, res.stderr).toBe(2);
    const expected = line(url, cwd);
    if (typeof expected === 'string') expect(oneErrorLine(res)).toBe(expected);
    else expect(oneErrorLine(res)).toMatch(expected);
    expect(server.requests()).toBe(before);
  });
});

describe('a symbolic link where the history or the ledger should be: exit 2, one line, the link target untouched', () => {
  it.each([
    {
      flag: '--history',
      what: 'history',
      fix: 'point --history (or history: in the config) at another file, or pass --history off',
    },
    {
      flag: '--ledger',
      what: 'ledger',
      fix: 'point --ledger (or ledger: in the config) at a file in a folder you can write, or pass --ledger off',
    },
  ])('$flag', async ({ flag, what, fix }) => {
    const cwd = project(configOf({ sandbox: server.url }));
    // Stands for /etc/passwd: a file of someone else's, readable by all (the history's mode check would fire).
    const victim = join(cwd, 'victim');
    writeFileSync(victim, 'root:x:0:0::/root:/bin/sh\n', { mode: 0o644 });
    const link = join(cwd, `${what}.link`);
    symlinkSync(victim, link);
    const other = what === 'history' ? ['--ledger', 'off'] : ['--history', 'off'];
    const res = await runCliInProcess(['check', flag, link, ...other, '--report-dir', 'report'], {
      cwd,
      env: CREDENTIALS,
    });
    expect(res.code, res.stderr).toBe(2);
    expect(oneErrorLine(res)).toBe(
      `ces-harness: ${what}: ${link} is a symbolic link, which the harness does not follow (a write or a chmod would change the file it points to); ${fix}`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0::/root:/bin/sh\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(existsSync(join(cwd, 'report'))).toBe(false);
  });
});

/** The markdown with every code span (a backtick run up to the next run of the same length) taken out. */
function outsideCodeSpans(md: string): string {
  let out = '';
  for (let i = 0; i < md.length;) {
    if (md[i] === '\\') {
      out += md.slice(i, i + 2);
      i += 2;
      continue;
    }
    const run = /^`+/.exec(md.slice(i))?.[0];
    if (run === undefined) {
      out += md[i++];
      continue;
    }
    const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
    close.lastIndex = i + run.length;
    const end = close.exec(md);
    // An unclosed run is literal backticks, and what follows is text.
    if (end === null) out += run;
    i = end === null ? i + run.length : end.index + run.length;
    out += end === null ? '' : ' ';
  }
  return out;
}

describe('what the service says never becomes a link', () => {
  it('outsideCodeSpans', () => {
    expect(outsideCodeSpans('a `x` b ``y ` z`` c \\`d` e ```f')).toBe('a   b   c \\`d` e ```f');
  });

  it('report.md has no URL, www. or e-mail address outside a code span; report.html links none of them', async () => {
    const cwd = project();
    // By default a field of the service's own (error_description) is shown as its shape, not its
    // words: --verbose-bodies quotes them, which is where they must stay inside code spans.
    const res = await runCliInProcess(checkArgs(server.url, 'report', '--verbose-bodies'), { cwd, env: CREDENTIALS });
    expect(res.code, res.stderr).toBe(1);
    const md = readFileSync(join(cwd, 'report', 'report.md'), 'utf8');
    // The service's words are there, quoted; and the certificate's name.
    expect(md).toContain('https://evil.example/y');
    expect(md).toContain('www.evil.example');
    const text = outsideCodeSpans(md);
    expect(text).not.toMatch(/:\/\/|www\.|@evil/);
    const html = readFileSync(join(cwd, 'report', 'report.html'), 'utf8');
    expect(html).toContain('evil.example');
    expect(html).not.toMatch(/<a\b[^>]*href="[^"#]*evil/);
  });
});
