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
import type { Emulator, Observed } from '../index.js';
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

/**
 * A worker thread that loads the emulator's code before its options are known, so that this load
 * (Node's TLS and HTTP modules, the emulator's bundle) runs on the other core while this thread
 * loads a command's own modules. Unreferenced until taken, so an unused spare never holds the
 * process; discard() stops it.
 */
export interface SpareWorker {
  /** Whether the thread was started (false: discarded first, or its code could not be found). */
  created: Promise<boolean>;
  /** The spare, once: undefined when it was discarded, failed or ended. */
  take(): Promise<Worker | undefined>;
  /** Stops the spare unless it was taken; resolves once its thread has ended. */
  discard(): Promise<void>;
}

export function spareEmulatorWorker(): SpareWorker {
  let state: 'waiting' | 'taken' | 'discarded' | 'ended' = 'waiting';
  const worker = workerCode().then((code) => {
    if (state === 'discarded') return undefined;
    const w = new Worker(code);
    w.unref();
    // A spare that fails is not taken; its start's error, if it is taken, is the emulator's to report.
    w.on('error', () => {});
    w.once('exit', () => {
      if (state === 'waiting') state = 'ended';
    });
    return w;
  });
  const settled = worker.catch(() => undefined);
  return {
    created: settled.then((w) => w !== undefined),
    take: async () => {
      const w = await settled;
      if (state !== 'waiting' || !w) return undefined;
      state = 'taken';
      w.ref();
      return w;
    },
    discard: async () => {
      if (state === 'taken') return;
      state = 'discarded';
      await (await settled)?.terminate();
    },
  };
}

/** What the starting thread is told as the worker's emulator answers. */
export interface WorkerHooks {
  /** Each request answered, with its answer: as EmulatorOptions.observe, told across the threads. */
  observe?: (observed: Observed) => void;
}

export async function startEmulatorWorker(
  options: WorkerEmulatorOptions,
  spare?: SpareWorker,
  { observe }: WorkerHooks = {},
): Promise<Emulator> {
  // Bad options fail here, in the caller's thread, as the usage errors they are. Loaded now, not
  // with this module: the catalogue of faults and profiles would otherwise load before a spare
  // thread is started, which loads it again in its own.
  const [{ resolveOptions }, { MAX_TOKENS }] = await Promise.all([
    import('../options.js'),
    import('../token-store.js'),
  ]);
  resolveOptions(options);
  const taken = await spare?.take();
  const code = taken ? undefined : await workerCode();
  // The certificates go to a folder this thread makes and removes: a second Ctrl-C ends the
  // process at once, the worker with it and its exit handlers unrun, and the private key must go
  // all the same (exit-cleanup.ts runs this thread's). The emulator leaves a folder it was given.
  const tlsDir = mkdtempSync(join(tmpdir(), 'ces-emulator-'));
  const removeTlsDir = () => rmSync(tlsDir, { recursive: true, force: true });
  const forget = atExit(removeTlsDir);
  const removed = () => (removeTlsDir(), forget());
  const start: WorkerStart = { options: { ...options, tlsDir }, ...(observe ? { observe: true } : {}) };
  const worker = taken ?? new Worker(code!, { workerData: start });
  if (taken) taken.postMessage({ kind: 'start', start } satisfies ToWorker);
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
    } else if (message.kind === 'observed') observe?.(revived(message.observed));
    else if (message.kind === 'closed') closeError = message.error;
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

/** An observation as the emulator's own thread saw it: the body a Buffer again (a clone makes it a Uint8Array). */
function revived(observed: Observed): Observed {
  const body = observed.req.body as Uint8Array;
  return { ...observed, req: { ...observed.req, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) } };
}

function rebuilt(error: CrossedError): Error {
  return error.code !== undefined && error.code in ERROR_CODES
    ? new HarnessError(error.code, error.message)
    : new Error(error.message);
}
