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
