// How long each stage of a target job took, said at the end: where a run's time goes is the
// user's to see. In the order the stages started; stages run side by side say so in their name.

export interface StageTimer {
  /** Runs a stage, timing it under `name`. */
  timed<T>(name: string, run: () => Promise<T>): Promise<T>;
  /**
   * `time: checks 10.8 s, load (beside the checks) 8.1 s, rate-limit sizing 22.2 s; 34.0 s in all`:
   * each stage's wall time, and the command's from start to the report written; none for one stage.
   */
  line(totalMs: number): string | undefined;
}

export function stageTimer(): StageTimer {
  const took: Array<[string, number]> = [];
  return {
    async timed(name, run) {
      const started = performance.now();
      const entry: [string, number] = [name, 0];
      took.push(entry);
      try {
        return await run();
      } finally {
        entry[1] = performance.now() - started;
      }
    },
    line: (totalMs) => (took.length > 1 ? stageTimes(took, totalMs) : undefined),
  };
}

export function stageTimes(took: ReadonlyArray<[string, number]>, totalMs: number): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `time: ${took.map(([name, ms]) => `${name} ${s(ms)}`).join(', ')}; ${s(totalMs)} in all`;
}
