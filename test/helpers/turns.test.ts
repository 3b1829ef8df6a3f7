// The gates the real tier's files use to keep their timing-sensitive parts apart (turns.ts).

import { describe, expect, it } from 'vitest';
import { relay } from './turns.js';

/** A promise and the function that resolves it, for steps a test releases by hand. */
function step(): { done: Promise<void>; release: () => void } {
  let release!: () => void;
  const done = new Promise<void>((go) => (release = go));
  return { done, release };
}

describe('relay', () => {
  it('starts each in the order given, once the one before has passed on, before that one ends', async () => {
    const turn = relay();
    const log: string[] = [];
    const firstMayEnd = step();
    const first = turn(async (passOn) => {
      log.push('first starts');
      passOn();
      await firstMayEnd.done;
      log.push('first ends');
    });
    const second = turn(async () => void log.push('second starts'));
    await second;
    expect(log).toEqual(['first starts', 'second starts']);
    firstMayEnd.release();
    await first;
    expect(log).toEqual(['first starts', 'second starts', 'first ends']);
  });

  it('holds the next until the one before passes on, or ends (a failure included)', async () => {
    const turn = relay();
    const log: string[] = [];
    const passFirst = step();
    const first = turn(async (passOn) => {
      await passFirst.done;
      log.push('first passes on');
      passOn();
    });
    const second = turn(async () => {
      log.push('second starts');
      throw new Error('second failed');
    });
    const third = turn(async () => void log.push('third starts'));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual([]);
    passFirst.release();
    await first;
    await expect(second).rejects.toThrow('second failed');
    await third;
    expect(log).toEqual(['first passes on', 'second starts', 'third starts']);
  });
});
