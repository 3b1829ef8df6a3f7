// When a VU writes the requests it noted for the timeline (scenarios/lib/timeline.ts wires this to
// k6): a batch at most once a second, and every request at once from some time before the end of
// the scenario the VU runs. k6 has no hook at a VU's end, so a batch still held when a VU sends its
// last request would be lost; writing at once from twice the longest pause between its requests
// (at least END_MARGIN_MS) before the end makes its last request go out as it is noted. Pure, no
// Node or k6 imports: esbuild bundles it into the scenarios, and it is tested on virtual times.

import { timelineLineOfPoints } from './contract.js';

/** A batch is written with the first request noted this long after its first one, ms. */
export const BATCH_MS = 1_000;
/**
 * The least time before the scenario's end from which each request is written at once, ms. A VU's
 * last request ends within one pause of the end (k6 starts no iteration past it), which twice the
 * longest pause covers; this floor covers only a VU that has seen no pause yet, and clock jitter.
 * Each request written at once is a console line of its own (k6 formats and writes each): 1 s was a
 * fifth of a 5 s scenario's requests.
 */
export const END_MARGIN_MS = 250;

export class TimelineBatch {
  /** The batch as its line writes it (timelineLineOfPoints): end, duration, then pause, duration… */
  private points: number[] = [];
  /** When the batch must be written at the latest (epoch ms); set by its first request. */
  private writeBy = 0;
  /** When the next request must write the batch (epoch ms): writeBy, or earlier near the end. */
  private writeAt = 0;
  /** When the scenario ends (epoch ms), or 0 when the VU cannot know it (then nothing waits). */
  private scenarioEnd: number | undefined;
  private previousEnd = 0;
  private longestPause = 0;

  /**
   * @param write     takes one line (k6's console.log)
   * @param endOfRun  the end of the scenario the VU runs, if the VU runs until then and no later
   *                  (epoch ms), else 0. Asked once, at the VU's first request: k6 builds
   *                  exec.test.options anew at each access, which cost more than a line. A VU
   *                  that k6 reuses for a later scenario keeps an end that has passed, so it
   *                  writes each request at once: slower, never lost.
   */
  constructor(
    private readonly write: (line: string) => void,
    private readonly endOfRun: () => number,
  ) {}

  /**
   * Notes one request that ended at `now` (epoch ms) and took `durationMs`. Called for every
   * request of a load run, so it does the least it can: k6's JavaScript engine interprets each
   * operation, and the time of the next write is worked out only when a batch starts or the
   * longest pause grows, not at each request.
   */
  add(now: number, durationMs: number): void {
    if (this.points.length === 0) {
      this.startBatch(now);
      this.points.push(now, durationMs);
    } else {
      const pause = now - this.previousEnd;
      if (pause > this.longestPause) this.lengthenPause(pause);
      this.points.push(pause, durationMs);
    }
    this.previousEnd = now;
    if (now >= this.writeAt) {
      this.write(timelineLineOfPoints(this.points));
      this.points = [];
    }
  }

  private startBatch(now: number): void {
    if (this.previousEnd > 0) this.longestPause = Math.max(this.longestPause, now - this.previousEnd);
    this.scenarioEnd ??= this.endOfRun();
    this.writeBy = now + BATCH_MS;
    this.plan();
  }

  private lengthenPause(pause: number): void {
    this.longestPause = pause;
    this.plan();
  }

  /** The batch goes out at writeBy, or at once from twice the longest pause before the end. */
  private plan(): void {
    this.writeAt = Math.min(this.writeBy, (this.scenarioEnd ?? 0) - Math.max(END_MARGIN_MS, 2 * this.longestPause));
  }
}
