// Bad files and unusable output places are the user's to fix, so they are exit 2 with one line
// naming the path and the fix, found before the first request: no check runs, no report is lost
// at the end, and nothing the run created (a folder, a ledger temp file) stays behind.
// The tests may run as root, which ignores permission bits: "cannot create" and "read-only" are
// places root cannot write either (/proc refuses mkdir with ENOENT, /sys with EPERM; another user
// gets EACCES), or a path under a regular file.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { startRefusingServer, type RefusingServer } from '../helpers/refusing-server.js';
import { createTestPki } from '../tls/pki.js';

/** A fresh working folder holding `afile` (a regular file) and `adir` (an empty folder). */
function work(): string {
  const cwd = mkdtempSync(join(tmpdir(), 'ces-outputs-'));
  writeFileSync(join(cwd, 'afile'), 'not a folder\n');
  mkdirSync(join(cwd, 'adir'));
  return cwd;
}

function expectOneLine(res: CliResult, line: RegExp): void {
  expect(res.code, res.stdout + res.stderr).toBe(2);
  // Nothing ran: no check result, no summary.
  expect(res.stdout).toBe('');
  const lines = res.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('no target configured'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^ces-harness: /);
  expect(lines[0]).toMatch(line);
  expect(res.stderr).not.toMatch(/unexpected error|\n\s+at /);
}

/** What the run left in its working folder, besides what the test put there. */
const leftovers = (cwd: string) =>
  readdirSync(cwd, { recursive: true })
    .map(String)
    .filter((f) => f !== 'afile' && f !== 'adir')
    .sort();

describe('files the user names: only regular files, never read past a size cap', () => {
  const cases: Array<{ name: string; args: (cwd: string) => string[]; line: RegExp }> = [
    {
      name: '--ca /dev/zero (read until out of memory before)',
      args: () => ['check', '--ca', '/dev/zero'],
      line: /--ca: \/dev\/zero is a device, not a file; give the CA certificate in PEM form$/,
    },
    {
      name: '--ca a folder',
      args: (cwd) => ['check', '--ca', join(cwd, 'adir')],
      line: /--ca: .*adir is a folder, not a file/,
    },
    {
      name: '--ca a 64 MiB file',
      args: (cwd) => {
        writeFileSync(join(cwd, 'afile'), '');
        truncateSync(join(cwd, 'afile'), 64 * 1024 * 1024);
        return ['check', '--ca', join(cwd, 'afile')];
      },
      line: /--ca: .*afile is larger than 4 MiB, too large to be the right file/,
    },
    {
      name: '--config /dev/zero',
      args: () => ['check', '--config', '/dev/zero'],
      line: /config: \/dev\/zero is a device, not a file; check the --config path$/,
    },
    {
      name: '--config a FIFO (blocked forever before)',
      args: (cwd) => {
        execFileSync('mkfifo', [join(cwd, 'adir', 'fifo')]);
        return ['check', '--config', join(cwd, 'adir', 'fifo')];
      },
      line: /config: .*fifo is a pipe, not a file/,
    },
    // The report folder is checked (and made) first; a config error after it takes it away again.
    {
      name: '--config /dev/zero with a new --report-dir',
      args: () => ['check', '--report-dir', 'new/report', '--config', '/dev/zero'],
      line: /config: \/dev\/zero is a device/,
    },
  ];

  it.each(cases)('$name → exit 2, one line', async ({ args, line }) => {
    const cwd = work();
    const res = await runCliInProcess(args(cwd), { cwd, timeoutMs: 20_000 });
    expectOneLine(res, line);
    expect(leftovers(cwd).filter((f) => !f.startsWith('adir'))).toEqual([]);
  });
});

describe('output places are checked before the first request', () => {
  const cases: Array<{ name: string; args: (cwd: string) => string[]; line: RegExp }> = [
    // Node's recursive mkdir never returns for a path under /proc: it spun at 85 % CPU, deaf to SIGTERM.
    {
      name: '--report-dir /proc/x',
      args: () => ['check', '--report-dir', '/proc/x'],
      line: /^ces-harness: --report-dir \/proc\/x: cannot create \/proc\/x \(.*(ENOENT|EACCES)\); give a folder you can write to$/,
    },
    {
      name: '--report-dir where even root may not write (/sys)',
      args: () => ['check', '--report-dir', '/sys/x'],
      line: /--report-dir \/sys\/x: cannot create \/sys\/x \((not permitted, EPERM|permission denied, EACCES)\)/,
    },
    {
      name: '--report-dir a file',
      args: () => ['check', '--report-dir', 'afile'],
      line: /--report-dir .*\/afile: is a file, not a folder; give a folder you can write to$/,
    },
    {
      name: '--report-dir under a file',
      args: () => ['check', '--report-dir', 'afile/report'],
      line: /--report-dir .*\/afile\/report: .*\/afile is a file, not a folder/,
    },
    {
      name: 'the default reports/ folder is a file',
      args: (cwd) => {
        writeFileSync(join(cwd, 'reports'), '');
        return ['check'];
      },
      line: /report folder .*\/reports: is a file, not a folder; run from a folder you can write to, or pass --report-dir DIR$/,
    },
    // Found after 137 requests before (exit 1, no report): the folder was fine, the file in it was not.
    {
      name: '--report-dir whose report.json is a folder',
      args: (cwd) => {
        mkdirSync(join(cwd, 'adir', 'report.json'));
        return ['check', '--report-dir', 'adir'];
      },
      line: /--report-dir .*\/adir: report\.json there is a folder, not a file; move it away, or give another --report-dir$/,
    },
    {
      name: '--report-dir whose junit.xml is a folder',
      args: (cwd) => {
        mkdirSync(join(cwd, 'adir', 'junit.xml'));
        return ['run', '--report-dir', 'adir'];
      },
      line: /--report-dir .*\/adir: junit\.xml there is a folder, not a file/,
    },
    {
      name: '--report-dir whose k6 is a file',
      args: (cwd) => {
        writeFileSync(join(cwd, 'adir', 'k6'), '');
        return ['load', '--report-dir', 'adir'];
      },
      line: /--report-dir .*\/adir: k6 there is a file, not the folder k6's summaries go in/,
    },
    {
      name: '--report-dir a name too long',
      args: () => ['check', '--report-dir', 'x'.repeat(300)],
      line: /--report-dir .*x{300}: cannot .*ENAMETOOLONG/,
    },
    {
      name: 'serve --tls-dir a file',
      args: () => ['serve', '--port', '0', '--tls-dir', 'afile'],
      line: /--tls-dir .*\/afile: is a file, not a folder; give a folder you can write to, or leave --tls-dir out/,
    },
    {
      name: 'serve --tls-dir under a file',
      args: () => ['serve', '--port', '0', '--tls-dir', 'afile/tls'],
      line: /--tls-dir .*\/afile\/tls: .*\/afile is a file, not a folder/,
    },
    {
      name: 'k8s --out-dir a file',
      args: () => ['k8s', '--base-url', 'https://ces.example.test', '--out-dir', 'afile'],
      line: /--out-dir .*\/afile: is a file, not a folder; give a folder you can write to$/,
    },
  ];

  it.each(cases)('$name → exit 2, one line, nothing run', async ({ args, line }) => {
    const cwd = work();
    const res = await runCliInProcess(args(cwd), { cwd, timeoutMs: 20_000 });
    expectOneLine(res, line);
    // What a case put in adir is its own; the run adds nothing there or beside it.
    expect(leftovers(cwd).filter((f) => f !== 'reports' && !f.startsWith('adir/'))).toEqual([]);
  });
});

describe('the ledger against a real target', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await createEmulator({ port: 0, tokenTtlS: 86_400 });
  });
  afterAll(async () => emulator.close());

  const cases: Array<{ name: string; ledger: string; line: RegExp }> = [
    {
      name: 'a folder',
      ledger: 'adir',
      line: /ledger: .*\/adir is a folder, not a file; point --ledger \(or ledger: in the config\) at a file in a folder you can write, or pass --ledger off$/,
    },
    {
      name: 'under a file',
      ledger: 'afile/ledger.json',
      line: /ledger .*\/afile\/ledger\.json: .*\/afile is a file, not a folder; point --ledger/,
    },
    {
      name: 'under /proc',
      ledger: '/proc/x/ledger.json',
      line: /ledger \/proc\/x\/ledger\.json: cannot create \/proc\/x/,
    },
  ];

  it.each(cases)('--ledger $name → exit 2 before any check, no temp file left', async ({ ledger, line }) => {
    const cwd = work();
    const env = { CES_CLIENT_ID: emulator.credentials.clientId, CES_CLIENT_SECRET: emulator.credentials.clientSecret };
    const res = await runCliInProcess(
      ['check', '--base-url', emulator.url, '--ca', emulator.caFile, '--ledger', ledger, '--report-dir', 'report'],
      { cwd, env, timeoutMs: 30_000 },
    );
    expectOneLine(res, line);
    // Neither the report folder made by the up-front check nor a ledger temp file (it holds whole tokens).
    expect(leftovers(cwd)).toEqual([]);
  });
});

describe('serve on a busy port', () => {
  let busy: Server;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('is exit 2 with one line naming the port and the fix', async () => {
    const port = (busy.address() as AddressInfo).port;
    const res = await runCliInProcess(['serve', '--port', String(port)], { cwd: work(), timeoutMs: 20_000 });
    expectOneLine(
      res,
      new RegExp(
        `^ces-harness: port ${port} on 127\\.0\\.0\\.1 is in use; pick another with --port, or --port 0 for a free one$`,
      ),
    );
  });
});

describe('the dated report folder is claimed before the first request', () => {
  const pki = createTestPki();
  let server: RefusingServer;
  beforeAll(async () => {
    server = await startRefusingServer(pki);
  });
  afterAll(async () => server.close());

  it('an environment name too long for a folder name → exit 2, one line, nothing sent', async () => {
    const cwd = work();
    writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
    const name = 'e'.repeat(250);
    writeFileSync(
      join(cwd, 'ces-harness.yaml'),
      `target: ${name}\nenvironments:\n  ${name}:\n    base_url: ${server.url}\n    client_id: id\n    client_secret: \${CES_CLIENT_SECRET}\n    ca_file: ca.pem\n`,
    );
    const res = await runCliInProcess(['check', '--ledger', 'off', '--history', 'off'], {
      cwd,
      env: { CES_CLIENT_SECRET: 'secret-value-x' },
      timeoutMs: 20_000,
    });
    expectOneLine(res, /report folder .*e{250}: cannot create it \(ENAMETOOLONG\); pass --report-dir DIR/);
    expect(server.connections()).toBe(0);
    expect(leftovers(cwd).filter((f) => f !== 'reports' && f !== 'ca.pem' && f !== 'ces-harness.yaml')).toEqual([]);
  });
});
