// A gate for concurrent tests of one file that must not all do their timing-sensitive part at once
// (a rate-limit probe reads the pace of its own answers, and beside another probe it reads the
// machine instead): at most n at a time.

/** Runs what it is given at most `n` at a time, in the order given. */
export function turns(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (work) => {
    if (running >= n) await new Promise<void>((go) => waiting.push(go));
    running++;
    try {
      return await work();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * Runs what it is given one after another in the order given, where each may let the next one start
 * before it ends: `work(passOn)` calls passOn() once the part the next must not overlap is over (and
 * it is called for it when `work` ends, whatever the outcome).
 */
export function relay(): <T>(work: (passOn: () => void) => Promise<T>) => Promise<T> {
  let previous: Promise<void> = Promise.resolve();
  return async (work) => {
    const before = previous;
    let passOn!: () => void;
    previous = new Promise<void>((go) => (passOn = go));
    await before;
    try {
      return await work(passOn);
    } finally {
      passOn();
    }
  };
}
