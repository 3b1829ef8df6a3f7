// Runs `ces-harness client` the way a user does (the built CLI, a child process) and reads back
// what it wrote: exit code, terminal output and report.json, with each check's status by id.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli, type CliResult } from '../helpers/cli.js';
import type { Report } from '../../src/report/model.js';

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
}

export async function runClientCli(flags: string[], command: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ClientOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'ces-client-'));
  try {
    const result = await runCli(['client', '--report-dir', dir, ...flags, '--', ...command], { ...options, cwd: dir });
    const file = join(dir, 'report.json');
    const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined;
    const statuses = Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.status]));
    const failed = Object.entries(statuses).filter(([, s]) => s === 'fail').map(([id]) => id).sort();
    // Everything the run wrote, for tests that hunt a secret in it.
    const files = report ? ['report.json', 'report.md', 'report.html', 'junit.xml'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n') : '';
    return { ...result, report, statuses, failed, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
