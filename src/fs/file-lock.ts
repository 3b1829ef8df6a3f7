// One writer at a time for a file that several runs share (the run history, which one CI cache or
// one folder may give to parallel jobs): a lock file beside it, created with O_EXCL, so exactly one
// process holds it. Each writer reads the file, adds to it and renames a new one over it; without
// the lock, runs ending together each write what they read plus their own record, the last rename
// wins, and the others' records are gone without a word.

import { closeSync, constants, lstatSync, openSync, rmSync, utimesSync, writeSync } from 'node:fs';

export interface LockTiming {
  /** How long to wait for another holder before giving up (the caller then keeps its data elsewhere). */
  waitMs: number;
  /** A lock older than this was left by a process that died holding it: a holder takes milliseconds. */
  staleMs: number;
  pollMs: number;
}

// Stale well inside the wait: a lock left by a crash is cleared, and this run's record still stored.
export const LOCK_TIMING: LockTiming = { waitMs: 15_000, staleMs: 10_000, pollMs: 25 };

const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

// Synchronous, like the read-modify-write it guards: the holder is another process, not this event loop.
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One attempt at `lock`: true when this process now holds it; a stale lock is cleared for the next attempt. */
function tryLock(lock: string, timing: LockTiming, deadline: number): boolean {
  try {
    const fd = openSync(lock, CREATE_NEW, 0o600);
    try {
      // Only for a person looking at a lock that is in the way.
      writeSync(fd, `${process.pid} ${new Date().toISOString()}\n`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (Date.now() >= deadline) {
    throw new Error(
      `another run held ${lock} for over ${timing.waitMs / 1000} s; if no run is writing, remove the lock`,
    );
  }
  if (ageMs(lock) > timing.staleMs) rmSync(lock, { force: true });
  return false;
}

/** Runs `work` holding `<path>.lock`; throws (naming the lock) when it cannot be had within timing.waitMs. */
export function withFileLock<T>(path: string, work: () => T, timing: LockTiming = LOCK_TIMING): T {
  const lock = `${path}.lock`;
  const deadline = Date.now() + timing.waitMs;
  while (!tryLock(lock, timing, deadline)) sleep(timing.pollMs);
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * withFileLock for work that takes minutes (building k6): waits without blocking the event loop,
 * and touches the lock every `heartbeatMs` while working, so a lock whose holder died goes stale
 * after timing.staleMs however long a live holder needs.
 */
export async function withFileLockAsync<T>(
  path: string,
  work: () => Promise<T>,
  timing: LockTiming & { heartbeatMs: number },
): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + timing.waitMs;
  while (!tryLock(lock, timing, deadline)) await new Promise((wake) => setTimeout(wake, timing.pollMs));
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(lock, now, now);
    } catch {
      // gone: nothing to keep fresh
    }
  }, timing.heartbeatMs);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    rmSync(lock, { force: true });
  }
}

function ageMs(lock: string): number {
  try {
    return Date.now() - lstatSync(lock).mtimeMs;
  } catch {
    return 0; // gone meanwhile: the next attempt takes it
  }
}
