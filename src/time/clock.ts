// The one clock the harness reads and waits on. Whatever judges time (a token's edge, the
// service's clock skew, a Retry-After, a limiter's window, a probe's pace) takes it from where it
// is handed in: the run's context (CheckContext.now/sleep), the service client, the probe, and the
// emulator's `now` option. So a test that runs the harness and the emulator in one process can put
// both on one virtual clock, and a token's 8 s life passes in milliseconds.
//
// Durations measured as a stopwatch (an answer's latency, a check's run time) stay on
// performance.now(): they describe this machine, not the service's time.

/** Epoch milliseconds, and a wait on the same time. */
export interface Clock {
  now(): number;
  /**
   * Resolves once `ms` have passed on this clock, or at once when `signal` aborts: the caller
   * decides what an abort means (a paced stream stops, a check throws: see sleepOrThrow).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The machine's clock: Date.now() and real timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

/** A sleep on `clock` that rejects with the signal's reason when it aborts (before or during). */
export async function sleepOrThrow(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await clock.sleep(ms, signal);
  signal.throwIfAborted();
}

export interface VirtualClock extends Clock {
  /** Moves time forward by `ms`, waking every sleep due by then in order. */
  advance(ms: number): void;
}

/**
 * Time for tests that only moves when something sleeps: once the event loop has run what is ready
 * (setImmediate), it jumps to the earliest pending wake-up and wakes that sleeper alone, so each
 * sleeper's continuation runs before the next one wakes, in the order a real clock would give, and
 * the same way every time. It does not move during real I/O (a request's window is an instant) unless
 * another task sleeps meanwhile: then the jump lands inside the request, as a stalled machine would.
 * Starts at `startMs` (now by default, so real certificates stay valid).
 *
 * `wakeUpsPerPass`: how many sleepers one pass of the event loop wakes, one after another. Node
 * runs every microtask between two immediates, so each continuation still settles before the next
 * wake-up, in the same order as with one a pass; the loop's own turn (about 2.7 µs, half of a
 * virtual probe's time) is paid once for them all. Only for a clock nothing real runs beside: a
 * socket or a real timer is served once a pass, so time runs that much further under it (a paced
 * stream to an emulator on loopback, 32 a pass, sent 32 requests to one instant of its clock).
 */
export function virtualClock(startMs = Date.now(), wakeUpsPerPass = 1): VirtualClock {
  let now = startMs;
  // Kept in wake-up order (time, then the order they slept in) as each one is added: a probe on this
  // clock keeps hundreds asleep at once (each request's way there and back), and sorting them all
  // at every wake-up was a tenth of a virtual probe's CPU time.
  const sleepers: Array<{ at: number; wake: () => void }> = [];
  const add = (sleeper: (typeof sleepers)[number]) => {
    // After every sleeper due at the same time or earlier: those due together wake in the order they slept.
    let low = 0;
    let high = sleepers.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sleepers[middle]!.at <= sleeper.at) low = middle + 1;
      else high = middle;
    }
    sleepers.splice(low, 0, sleeper);
  };
  /** The earliest pending wake-up, taken off the list when it is due by `until`. */
  const next = (until = Infinity) =>
    sleepers[0] !== undefined && sleepers[0].at <= until ? sleepers.shift() : undefined;
  // Wake-ups queued as immediates and not yet run; one that finds no sleeper due does nothing.
  let queued = 0;
  const tick = () => {
    queued--;
    const due = next();
    if (due) {
      now = Math.max(now, due.at);
      due.wake();
    }
    if (queued === 0) schedule();
  };
  const schedule = () => {
    if (queued > 0 || sleepers.length === 0) return;
    queued = wakeUpsPerPass;
    for (let i = 0; i < wakeUpsPerPass; i++) setImmediate(tick);
  };
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const sleeper = { at: now + Math.max(0, ms), wake: () => done() };
        const done = () => {
          const i = sleepers.indexOf(sleeper);
          if (i >= 0) sleepers.splice(i, 1);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        add(sleeper);
        signal?.addEventListener('abort', done, { once: true });
        schedule();
      }),
    advance: (ms) => {
      const until = now + ms;
      for (let due = next(until); due; due = next(until)) {
        now = Math.max(now, due.at);
        due.wake();
      }
      now = Math.max(now, until);
    },
  };
}
