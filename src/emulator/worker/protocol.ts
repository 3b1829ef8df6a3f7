// What an emulator in a worker thread (entry.ts) and the thread that started it (host.ts) say to
// each other: plain data, since it crosses threads by structured clone.

import type { ErrorCode } from '../../errors.js';
import type { Emulator, EmulatorOptions } from '../index.js';

/**
 * The options a worker's emulator can be given: those that survive a structured clone (no clock,
 * hook, limiter object or override function). No TLS folder: the host makes the one it uses, and no
 * perEnvironment CA, whose folder the worker would make where its host cannot remove it.
 */
export type WorkerEmulatorOptions = Pick<
  EmulatorOptions,
  'host' | 'port' | 'environments' | 'tokenTtlS' | 'rateLimit' | 'clients' | 'faults' | 'profiles' | 'businessLatencyMs'
>;

/** What the emulator tells about itself once listening: everything of an Emulator but its methods. */
export type EmulatorFacts = Omit<Emulator, 'issuedTokens' | 'close'>;

/** An error as it crosses: its message, and its code when it is one of the harness's (errors.ts). */
export interface CrossedError {
  message: string;
  code?: ErrorCode;
}

/** What the worker is started with: the options, and the folder its host made for the certificates. */
export interface WorkerStart {
  options: WorkerEmulatorOptions & { tlsDir: string };
}

export type FromWorker =
  /** Posted as each token is issued, before the answer carrying it: the host knows it first. */
  | { kind: 'token'; token: string }
  | { kind: 'ready'; facts: EmulatorFacts }
  | { kind: 'failed'; error: CrossedError }
  /** Every listener and connection is closed and the certificate folders are gone (or `error` says why not). */
  | { kind: 'closed'; error?: CrossedError };

export type ToWorker =
  /** To a spare worker (started with no workerData): become the emulator these options describe. */
  { kind: 'start'; start: WorkerStart } | { kind: 'close' };
