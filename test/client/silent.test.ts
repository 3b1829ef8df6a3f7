// A client run with nothing to judge (no request at all: it exited at once, never called, or printed
// its secret first) still leaves the whole report, in every format, naming the scenario and what
// happened; exit 1 with one line on stderr saying so. The scenarios after it are not run.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPORT_FILES, fixture, runClientCli } from './run-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'ces-silent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const oneLine = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('ces-harness:'));

const CASES = [
  {
    name: 'exits at once',
    flags: ['--time-limit', '20'],
    command: [process.execPath, '-e', 'process.exit(0)'],
    silentIn: 'steady',
    says: /exited with code 0 after [\d.]+ s without a request to CES_BASE_URL/,
    ran: ['steady'],
    failed: [],
  },
  {
    name: 'never calls',
    flags: ['--time-limit', '2', '--scenario', 'steady', '--scenario', 'slow-business'],
    command: ['sleep', '60'],
    silentIn: 'steady',
    says: /made no request to CES_BASE_URL in [\d.]+ s and was stopped at the time limit/,
    ran: ['steady'],
    failed: ['client.exit-code'],
  },
  {
    name: 'prints its secret before its first request',
    flags: ['--scenario', 'steady'],
    command: [process.execPath, fixture('prints-secret-first.mjs')],
    silentIn: 'steady',
    says: /printed its client secret after [\d.]+ s, before any request, and was stopped/,
    ran: ['steady'],
    failed: ['client.exit-code', 'client.secret-kept'],
  },
  {
    name: 'is silent only in a later scenario',
    flags: ['--scenario', 'steady', '--scenario', 'short-token-lifetime', '--scenario', 'slow-business'],
    command: [process.execPath, fixture('silent-after-first.mjs')],
    silentIn: 'short-token-lifetime',
    says: /exited with code 0 after [\d.]+ s without a request to CES_BASE_URL/,
    ran: ['steady', 'short-token-lifetime'],
    failed: [],
  },
] as const;

describe('ces-harness client with a client that makes no request', () => {
  // Side by side: each waits on its own client (one for its 2 s time limit, one through three scenarios).
  it.concurrent.for(CASES)(
    '$name: exit 1, one line, and the report says which scenario and what happened',
    { timeout: 60_000 },
    async ({ name, flags, command, silentIn, says, ran, failed }, { expect }) => {
      const files = { RAN_FILE: join(scratch, `${name}.ran`), SECRET_FILE: join(scratch, `${name}.secret`) };
      const run = await runClientCli([...flags], [...command], { env: files, timeoutMs: 50_000 });
      expect(run.code).toBe(1);
      expect(oneLine(run.stderr)).toEqual([expect.stringMatching(says)]);
      expect(oneLine(run.stderr)[0]).toContain(`(scenario ${silentIn})`);
      expect(run.report?.verdict).toBe('fail');
      expect(run.report!.client!.runs.map((r) => r.scenario)).toEqual(ran);
      expect(run.failed).toEqual(failed);
      const untested = run.report!.untested.find((u) => u.stage === 'client')!;
      expect(untested.reason).toMatch(says);
      expect(untested.reason).toContain(`scenario ${silentIn}`);
      for (const file of REPORT_FILES) expect(run.byFile[file], file).toContain(`scenario ${silentIn}`);
      if (existsSync(files.SECRET_FILE))
        expect(run.stdout + run.stderr + run.files).not.toContain(readFileSync(files.SECRET_FILE, 'utf8'));
    },
  );
});
