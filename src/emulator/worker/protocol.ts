// What an emulator in a worker thread (entry.ts) and the thread that started it (host.ts) say to
// each other: plain data, since it crosses threads by structured clone.

import type { ErrorCode } from '../../errors.js';
import type { Emulator, EmulatorOptions, Observed } from '../index.js';
import type { EnvironmentDifferences } from '../options.js';

/**
 * The options a worker's emulator can be given: those that survive a structured clone (no clock,
 * hook, limiter object or override function). No TLS folder: the host makes the one it uses, and no
 * perEnvironment CA or certificate, whose folder the worker would make where its host cannot remove it.
 */
export const WORKER_OPTIONS = [
  'host',
  'port',
  'environments',
  'tokenTtlS',
  'rateLimit',
  'clients',
  'faults',
  'profiles',
  'businessLatencyMs',
  'perEnvironment',
] as const;
/** Of an environment's own differences (EmulatorOptions.perEnvironment), those a worker's emulator takes. */
export const WORKER_ENVIRONMENT_OPTIONS = [
  'tokenTtlS',
  'rateLimit',
  'businessLatencyMs',
  'validateMethods',
  'faults',
  'profiles',
] as const;

export type WorkerEmulatorOptions = Pick<
  EmulatorOptions,
  Exclude<(typeof WORKER_OPTIONS)[number], 'perEnvironment'>
> & {
  perEnvironment?: Record<string, Pick<EnvironmentDifferences, (typeof WORKER_ENVIRONMENT_OPTIONS)[number]>>;
};

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
  /** Whether to post each request the emulator answers (`observed`), for a host's observe hook. */
  observe?: boolean;
}

export type FromWorker =
  /** Posted as each token is issued, before the answer carrying it: the host knows it first. */
  | { kind: 'token'; token: string }
  /** Posted as each request is answered (when started with `observe`), before the answer leaves. */
  | { kind: 'observed'; observed: Observed }
  | { kind: 'ready'; facts: EmulatorFacts }
  | { kind: 'failed'; error: CrossedError }
  /** Every listener and connection is closed and the certificate folders are gone (or `error` says why not). */
  | { kind: 'closed'; error?: CrossedError };

export type ToWorker =
  /** To a spare worker (started with no workerData): become the emulator these options describe. */
  { kind: 'start'; start: WorkerStart } | { kind: 'close' };
