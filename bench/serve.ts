// The emulator in its own process (`ces-harness serve`), for the benches that load it: a load
// generator and a server sharing one event loop would measure each other, not themselves.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Target } from '../src/config/target.js';

export interface ServedEmulator {
  pid: number;
  target: Target;
  caFile: string;
  stop(): Promise<void>;
}

/** A cold `serve` generates its certificates and listens within a second or two; this bounds a hang. */
const START_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

interface ServeLine {
  environment: string;
  base_url: string;
  ca_file: string;
  client_id: string;
  client_secret: string;
}

const isServeLine = (v: unknown): v is ServeLine =>
  typeof v === 'object' &&
  v !== null &&
  ['environment', 'base_url', 'ca_file', 'client_id', 'client_secret'].every(
    (k) => typeof (v as Record<string, unknown>)[k] === 'string',
  );

export async function startServe(projectRoot: string, args: readonly string[]): Promise<ServedEmulator> {
  // process.execPath, not `npx`: the pid is then node itself, and /proc/<pid> is the server's CPU.
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'ces-harness.js'), 'serve', '--port', '0', ...args], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Whatever happens to the bench, the server does not outlive it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 8192) stderr += c.toString('utf8');
  });
  try {
    const line = await firstLine(child);
    const caPem = await readFile(line.ca_file, 'utf8');
    return {
      pid: child.pid!,
      caFile: line.ca_file,
      target: {
        environment: line.environment,
        baseUrl: line.base_url,
        credentials: { clientId: line.client_id, clientSecret: line.client_secret },
        caPem,
        caFile: line.ca_file,
        emulated: true,
      },
      stop: async () => {
        await stop(child);
        process.removeListener('exit', killOnExit);
      },
    };
  } catch (err) {
    await stop(child);
    process.removeListener('exit', killOnExit);
    throw new Error(
      `ces-harness serve did not start: ${(err as Error).message}${stderr ? `; stderr: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
    );
  }
}

function firstLine(child: ChildProcess): Promise<ServeLine> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    const done = (fn: () => void) => {
      clearTimeout(timer);
      rl.close();
      child.removeListener('exit', onExit);
      fn();
    };
    const timer = setTimeout(
      () => done(() => reject(new Error(`no JSON line within ${START_TIMEOUT_MS / 1000} s`))),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`exited with ${String(code)} before listening`)));
    child.once('exit', onExit);
    rl.on('line', (text) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return; // not the contract line; keep reading
      }
      if (isServeLine(parsed)) done(() => resolve(parsed));
    });
  });
}

/** SIGTERM (the emulator closes cleanly on it), SIGKILL if it has not exited after the grace. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
