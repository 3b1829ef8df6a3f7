// The CLI's built-in emulator runs in a worker thread (src/emulator/worker/): it answers while the
// CLI's own thread is busy, it hands the CLI the same Emulator (the tokens it issued included, which
// no report may hold), and its thread ends with the command, a failed start of the command included.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { spareEmulatorWorker, type SpareWorker } from '../../src/emulator/worker/host.js';
import { prepareTarget } from '../../src/cli/prepare-target.js';
import type { Terminal } from '../../src/cli/terminal.js';
import { fingerprint, Redactor } from '../../src/http/redact.js';
import { runCliInProcess } from '../helpers/cli.js';

// Every built-in emulator the CLI starts, as the CLI got it: the real worker-backed one, only recorded.
const started = vi.hoisted(() => [] as Emulator[]);
// And every spare thread it began beside its own loading (src/cli/emulator-spare.ts).
const spares = vi.hoisted(() => [] as SpareWorker[]);
// What a report folder held each time an emulator was told to close (the folder a test names).
const atClose = vi.hoisted(() => ({ folder: '', held: [] as string[][] }));
vi.mock('../../src/emulator/worker/host.js', async (original) => {
  const real = await original<typeof import('../../src/emulator/worker/host.js')>();
  return {
    ...real,
    startEmulatorWorker: async (...args: Parameters<typeof real.startEmulatorWorker>) => {
      const emulator = await real.startEmulatorWorker(...args);
      started.push(emulator);
      const { readdirSync: list, existsSync: exists } = await import('node:fs');
      return {
        ...emulator,
        close: () => {
          atClose.held.push(atClose.folder && exists(atClose.folder) ? list(atClose.folder) : []);
          return emulator.close();
        },
      };
    },
    spareEmulatorWorker: () => {
      const spare = real.spareEmulatorWorker();
      spares.push(spare);
      return spare;
    },
  };
});
afterAll(async () => {
  await Promise.all(started.map((e) => e.close()));
  vi.doUnmock('../../src/emulator/worker/host.js');
  vi.resetModules();
});

const quiet = (): Terminal => ({ color: false, out: () => {}, err: () => {}, progress: () => {} });
const emptyFolder = () => mkdtempSync(join(tmpdir(), 'ces-emuthread-'));
/** Threads of this process, as the kernel counts them: a worker thread is one. */
const threads = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);

/**
 * POST /tokens from another process, while this thread is blocked in spawnSync: only an emulator
 * on another thread can answer it. Bounded by the child's own timeout and spawnSync's.
 */
function tokenWhileBlocked(url: string, caPem: string, credentials: { clientId: string; clientSecret: string }) {
  const child = `
    const body = JSON.stringify({ token: { client_id: process.env.ID, client_secret: process.env.SECRET } });
    const req = require('node:https').request(process.env.URL + '/tokens', {
      method: 'POST', ca: process.env.CA, timeout: 5000,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => { process.stdout.write(String(res.statusCode)); res.resume(); });
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', (e) => process.stdout.write('error: ' + e.message));
    req.end(body);`;
  return spawnSync(process.execPath, ['-e', child], {
    env: { URL: url, CA: caPem, ID: credentials.clientId, SECRET: credentials.clientSecret },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('the built-in emulator the CLI starts', () => {
  it('answers while the CLI’s thread is blocked: it serves from a thread of its own', async () => {
    const prepared = await prepareTarget({}, new Redactor(), quiet(), { env: {}, cwd: emptyFolder() });
    try {
      const { baseUrl, caPem, credentials } = prepared.settings.target;
      const answer = tokenWhileBlocked(baseUrl, caPem!, credentials);
      expect(answer.stdout).toBe('200');
      // The token it issued then is the handle's, with no request of this thread in between.
      await prepared.close();
      expect(started.at(-1)!.issuedTokens()).toHaveLength(1);
    } finally {
      await prepared.close();
    }
  });

  it('ends its thread and removes its key when the command fails after starting it', async () => {
    // libuv starts its pool's threads on first use: started before counting, not during.
    await readFile('/proc/self/status');
    const before = threads();
    let during = 0;
    let tlsDir = '';
    const failing = prepareTarget({}, new Redactor(), quiet(), { env: {}, cwd: emptyFolder() }, (settings) => {
      during = threads();
      tlsDir = dirname(settings.target.caFile!);
      throw new Error('the report folder cannot be claimed');
    });
    await expect(failing).rejects.toThrow('the report folder cannot be claimed');
    // The count sees the worker (not vacuous), and it is gone once the command's error is out.
    expect(during).toBe(before + 1);
    expect(threads()).toBe(before);
    expect(existsSync(tlsDir)).toBe(false);
  });

  it('issues tokens no report holds: a 401 carrying one is quoted with the token hidden', async () => {
    const cwd = emptyFolder();
    const from = started.length;
    const res = await runCliInProcess(
      ['check', '--fault', 'refusal-carries-token', '--only', 'token.bad-secret-401', '--report-dir', 'report'],
      { cwd },
    );
    expect(res.code, res.stderr).toBe(1);
    const tokens = started.slice(from).flatMap((e) => e.issuedTokens());
    expect(tokens.length).toBeGreaterThan(0);
    const files = readdirSync(join(cwd, 'report'), { recursive: true, encoding: 'utf8' })
      .map((f) => join(cwd, 'report', f))
      .filter((f) => statSync(f).isFile());
    expect(files.length).toBeGreaterThan(2);
    const written = [res.stdout, res.stderr, ...files.map((f) => readFileSync(f, 'utf8'))].join('\n');
    for (const token of tokens)
      expect(written.includes(token), `token ${fingerprint(token)} in the output`).toBe(false);
    // The fault did put one in a quoted answer: the report shows it as its fingerprint.
    expect(tokens.some((token) => written.includes(fingerprint(token)))).toBe(true);
  });

  /** A spare thread, seen started (not vacuous), and the thread count before it. */
  async function startedSpare(): Promise<{ before: number; spare: SpareWorker }> {
    // libuv starts its pool's threads on first use: started before counting, not during.
    await readFile('/proc/self/status');
    const before = threads();
    const spare = spareEmulatorWorker();
    expect(await spare.created).toBe(true);
    expect(threads()).toBe(before + 1);
    return { before, spare };
  }

  // The CLI begins the emulator's thread while it loads the command's own modules, so the two loads
  // share the cores; the thread then becomes the emulator, or ends unused with the command.
  it('starts in the spare thread begun beside the CLI’s loading: one thread, serving, gone with the command', async () => {
    const { before, spare } = await startedSpare();
    const cwd = emptyFolder();
    const prepared = await prepareTarget({}, new Redactor(), quiet(), { env: {}, cwd }, undefined, spare);
    try {
      // The spare became the emulator: no second thread, and it answers while this one is blocked.
      expect(threads()).toBe(before + 1);
      const { baseUrl, caPem, credentials } = prepared.settings.target;
      expect(tokenWhileBlocked(baseUrl, caPem!, credentials).stdout).toBe('200');
    } finally {
      await prepared.close();
    }
    // Taken: the command's discard at its end leaves it to close(), which ended it.
    await spare.discard();
    expect(threads()).toBe(before);
  });

  // The report needs nothing of the emulator once the stages are done: its thread ends while the
  // report is written (target-job.ts), not after the summary.
  it('is told to close once the checks are done, before the report is written', async () => {
    const cwd = emptyFolder();
    atClose.folder = join(cwd, 'report');
    const from = atClose.held.length;
    const res = await runCliInProcess(['check', '--only', 'health.no-credentials', '--report-dir', 'report'], { cwd });
    expect(res.code, res.stderr).toBe(0);
    // One close for the run, and the folder (made before the first request) still empty then.
    expect(atClose.held.slice(from)).toEqual([[]]);
    expect(readdirSync(atClose.folder)).toContain('report.json');
    atClose.folder = '';
  });

  it('stops the spare when a target is configured after all', async () => {
    const { before, spare } = await startedSpare();
    // Port 1 refuses: the preflight fails (exit 3), after the spare was let go.
    const env = { CES_CLIENT_ID: 'id', CES_CLIENT_SECRET: 'secret' };
    const failing = prepareTarget(
      { 'base-url': 'https://127.0.0.1:1' },
      new Redactor(),
      quiet(),
      { env, cwd: emptyFolder() },
      undefined,
      spare,
    );
    await expect(failing).rejects.toThrow();
    expect(threads()).toBe(before);
  });

  it('stops the spare when the command ends before the emulator starts (a usage error)', async () => {
    await readFile('/proc/self/status');
    const before = threads();
    const from = spares.length;
    const res = await runCliInProcess(['check', '--only', 'no.such-check'], { cwd: emptyFolder() });
    expect(res.code).toBe(2);
    expect(spares.length).toBe(from + 1);
    expect(threads()).toBe(before);
  });
});
