// The one clock (src/time/clock.ts): the system clock's sleep ends on an abort, and the virtual
// clock only moves when something sleeps, waking sleepers one at a time in the order a real clock
// would. The real-time cases sleep a few milliseconds on purpose: they prove the system clock's
// timers, which no virtual clock can stand in for.

import { describe, expect, it } from 'vitest';
import { sleepOrThrow, systemClock, virtualClock } from '../../src/time/clock.js';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

describe('virtualClock', () => {
  it('stands still until something sleeps, then jumps to the wake-up', async () => {
    const clock = virtualClock(T0);
    expect(clock.now()).toBe(T0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.now()).toBe(T0);
    await clock.sleep(8_000);
    expect(clock.now()).toBe(T0 + 8_000);
  });

  it('wakes concurrent sleepers in the order of their wake-ups, each at its own time', async () => {
    const clock = virtualClock(T0);
    const woke: Array<[string, number]> = [];
    const sleeper = async (name: string, ms: number) => {
      await clock.sleep(ms);
      woke.push([name, clock.now() - T0]);
    };
    await Promise.all([sleeper('late', 3_000), sleeper('early', 1_000), sleeper('same', 1_000)]);
    expect(woke).toEqual([
      ['early', 1_000],
      ['same', 1_000],
      ['late', 3_000],
    ]);
  });

  it('a sleeper woken first runs before the next one wakes: its new sleep counts from its own wake-up', async () => {
    const clock = virtualClock(T0);
    const woke: Array<[string, number]> = [];
    const twice = async () => {
      await clock.sleep(1_000);
      await clock.sleep(1_000);
      woke.push(['twice', clock.now() - T0]);
    };
    const once = async () => {
      await clock.sleep(2_500);
      woke.push(['once', clock.now() - T0]);
    };
    await Promise.all([twice(), once()]);
    expect(woke).toEqual([
      ['twice', 2_000],
      ['once', 2_500],
    ]);
  });

  // Many wake-ups a pass of the event loop (virtual probes' clocks): Node runs every microtask
  // between two immediates, so each continuation, however many awaits deep, settles before the
  // next sleeper wakes, and the trace is the one a pass each gives.
  it('wakes many sleepers a pass in the same order as one a pass, continuations many awaits deep', async () => {
    const trace = async (wakeUpsPerPass: number) => {
      const clock = virtualClock(T0, wakeUpsPerPass);
      const seen: string[] = [];
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const task = async (name: string) => {
        for (let step = 0; step < 40; step++) {
          await clock.sleep(Math.floor(random() * 50));
          // A continuation that takes a few microtasks before it sleeps again or says where it is.
          for (let hop = Math.floor(random() * 4); hop > 0; hop--) await Promise.resolve();
          seen.push(`${name}@${clock.now() - T0}`);
        }
      };
      await Promise.all(['a', 'b', 'c', 'd', 'e'].map(task));
      return seen;
    };
    const onePerPass = await trace(1);
    expect(onePerPass).toHaveLength(200);
    expect(await trace(32)).toEqual(onePerPass);
  });

  it('ends a sleep at once on an abort, without moving time', async () => {
    const clock = virtualClock(T0);
    const stop = new AbortController();
    const slept = clock.sleep(60_000, stop.signal);
    stop.abort();
    await slept;
    expect(clock.now()).toBe(T0);
    await clock.sleep(5, AbortSignal.abort());
    expect(clock.now()).toBe(T0);
  });

  it('advance() wakes what is due by then, and nothing later', async () => {
    const clock = virtualClock(T0);
    const woke: string[] = [];
    void clock.sleep(1_000).then(() => woke.push('1 s'));
    void clock.sleep(5_000).then(() => woke.push('5 s'));
    clock.advance(2_000);
    expect(clock.now()).toBe(T0 + 2_000);
    await Promise.resolve();
    expect(woke).toEqual(['1 s']);
  });
});

describe('systemClock (real time, on purpose)', () => {
  it('sleeps on a real timer', async () => {
    const started = performance.now();
    await systemClock.sleep(20);
    expect(performance.now() - started).toBeGreaterThanOrEqual(19);
  });

  it('ends a sleep at once on an abort', async () => {
    const stop = new AbortController();
    const started = performance.now();
    setTimeout(() => stop.abort(), 5);
    await systemClock.sleep(10_000, stop.signal);
    await systemClock.sleep(10_000, AbortSignal.abort());
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('sleepOrThrow', () => {
  it("throws the signal's reason when the wait is cut short, and before waiting when it already was", async () => {
    const clock = virtualClock(T0);
    const stop = new AbortController();
    const slept = sleepOrThrow(clock, 60_000, stop.signal);
    stop.abort(new Error('interrupted'));
    await expect(slept).rejects.toThrow('interrupted');
    await expect(sleepOrThrow(clock, 1, stop.signal)).rejects.toThrow('interrupted');
    await expect(sleepOrThrow(clock, 1_000, new AbortController().signal)).resolves.toBeUndefined();
    expect(clock.now()).toBe(T0 + 1_000);
  });
});
