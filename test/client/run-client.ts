// Runs `ces-harness client` and reads back what it wrote: exit code, terminal output and
// report.json, with each check's status by id. In the test's process by default (main with the
// test's own environment and folder, which the client inherits); `spawned` runs the built CLI as a
// child process the way a user does, for the real tier's runs of every scenario per reference client.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli, runCliInProcess, type CliResult } from '../helpers/cli.js';
import type { Report } from '../../src/report/model.js';
import { expectValidReport } from '../report/schema.js';

export const FIXTURES = resolve('test/fixtures/clients');
export const fixture = (name: string) => join(FIXTURES, name);

export interface ClientOutcome extends CliResult {
  report: Report | undefined;
  /** Check id → status. */
  statuses: Record<string, string>;
  /** The ids of failed checks, sorted. */
  failed: string[];
  /** Every report file's text, joined. */
  files: string;
  /** Each report file's text by name (report.json, report.md, report.html, junit.xml). */
  byFile: Record<string, string>;
}

export const REPORT_FILES = ['report.json', 'report.md', 'report.html', 'junit.xml'] as const;

/** Running, not just a zombie: in a container whose init does not reap, a killed orphan stays one (state Z). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
};

/**
 * Whether `pid` still runs after up to `withinMs`: a SIGKILL is delivered at once, but the process
 * ends when the kernel next runs it, which on a machine at load 8 on 2 cores may come after the
 * harness has already exited. A daemon that escaped the kill (a sleep of two minutes) is still there.
 */
export async function stillAliveAfter(pid: number, withinMs: number): Promise<boolean> {
  for (const end = Date.now() + withinMs; alive(pid); await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > end) return true;
  return false;
}

export async function runClientCli(
  flags: string[],
  command: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; spawned?: boolean } = {},
): Promise<ClientOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'ces-client-'));
  try {
    const { spawned, ...cli } = options;
    const args = ['client', '--report-dir', dir, ...flags, '--', ...command];
    const result = await (spawned ? runCli : runCliInProcess)(args, { ...cli, cwd: dir });
    const file = join(dir, 'report.json');
    const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined;
    if (report) expectValidReport(report);
    const statuses = Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.status]));
    const failed = Object.entries(statuses)
      .filter(([, s]) => s === 'fail')
      .map(([id]) => id)
      .sort();
    // Everything the run wrote, for tests that hunt a secret in it.
    const byFile: Record<string, string> = report
      ? Object.fromEntries(REPORT_FILES.map((f) => [f, readFileSync(join(dir, f), 'utf8')]))
      : {};
    return { ...result, report, statuses, failed, files: Object.values(byFile).join('\n'), byFile };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
