// The built-in emulator, started in a worker thread and handled from the thread that started it as
// if it were in-process: the same Emulator (url, credentials, certificates, issuedTokens(), close()).
// The CLI's `run`, `check` and `npm start` use it, so the service side of every TLS handshake no
// longer shares the CLI's one thread with the client side (entry.ts says why that matters).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { atExit } from '../../exit-cleanup.js';
import { ERROR_CODES, HarnessError } from '../../errors.js';
import type { Emulator } from '../index.js';
import { resolveOptions } from '../options.js';
import { MAX_TOKENS } from '../token-store.js';
import { workerCode } from './code.js';
import type {
  CrossedError,
  EmulatorFacts,
  FromWorker,
  ToWorker,
  WorkerEmulatorOptions,
  WorkerStart,
} from './protocol.js';

/** How long a closing worker may take before it is stopped outright: closing is milliseconds. */
const CLOSE_TIMEOUT_MS = 10_000;

export async function startEmulatorWorker(options: WorkerEmulatorOptions): Promise<Emulator> {
  // Bad options fail here, in the caller's thread, as the usage errors they are.
  resolveOptions(options);
  const code = await workerCode();
  // The certificates go to a folder this thread makes and removes: a second Ctrl-C ends the
  // process at once, the worker with it and its exit handlers unrun, and the private key must go
  // all the same (exit-cleanup.ts runs this thread's). The emulator leaves a folder it was given.
  const tlsDir = mkdtempSync(join(tmpdir(), 'ces-emulator-'));
  const removeTlsDir = () => rmSync(tlsDir, { recursive: true, force: true });
  const forget = atExit(removeTlsDir);
  const removed = () => (removeTlsDir(), forget());
  const worker = new Worker(code, { workerData: { options: { ...options, tlsDir } } satisfies WorkerStart });
  // Every token the worker issues, told before the answer carrying it leaves the worker: so
  // issuedTokens() is synchronous, holds a token by the time any report could quote it, and holds
  // every one once close() has resolved. Bounded as the worker's own stores are.
  const tokens = new Set<string>();
  const cap = MAX_TOKENS * (options.environments?.length ?? 1);
  let closeError: CrossedError | undefined;
  worker.on('message', (message: FromWorker) => {
    if (message.kind === 'token') {
      if (tokens.size >= cap) tokens.delete(tokens.values().next().value!);
      tokens.add(message.token);
    } else if (message.kind === 'closed') closeError = message.error;
  });
  // Node delivers every message the worker posted before it emits 'exit'.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A crash after start ends the thread ('exit' follows, close() still resolves); the run has
  // already met it as a service that stopped answering, which its checks report.
  worker.on('error', () => {});
  const facts = await started(worker).catch(async (err: unknown) => {
    await worker.terminate();
    removed();
    throw err;
  });
  let closing: Promise<void> | undefined;
  const close = async () => {
    worker.postMessage({ kind: 'close' } satisfies ToWorker);
    const stuck = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    await exited;
    clearTimeout(stuck);
    removed();
    if (closeError) throw rebuilt(closeError);
  };
  return { ...facts, issuedTokens: () => [...tokens], close: () => (closing ??= close()) };
}

/** The emulator's facts once it listens, or its start's error as the harness's own error class. */
function started(worker: Worker): Promise<EmulatorFacts> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromWorker) => {
      if (message.kind === 'ready') settle(() => resolve(message.facts));
      else if (message.kind === 'failed') settle(() => reject(rebuilt(message.error)));
    };
    const onError = (err: Error) => settle(() => reject(err));
    const onExit = (code: number) =>
      settle(() => reject(new Error(`the emulator's worker ended (code ${code}) before it listened`)));
    const settle = (then: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      then();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

function rebuilt(error: CrossedError): Error {
  return error.code !== undefined && error.code in ERROR_CODES
    ? new HarnessError(error.code, error.message)
    : new Error(error.message);
}
