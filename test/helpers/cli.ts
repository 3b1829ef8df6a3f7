// Spawns the built CLI the way a user runs it (`npm test` builds dist/ first).
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = resolve('bin/ces-harness.js');

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      // A clean environment: no developer's CES_* variables leak into a test.
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
