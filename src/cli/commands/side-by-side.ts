// `run`'s checks and load at once, when the load has instances of the built-in emulator to itself
// (StageTarget.isolatedTarget): no limit, token store or connection is shared, so the load's k6
// runs while the checks wait for their token to expire. Three holds keep each verdict as it was in
// turns: the checks' rate-limit family (paced past the limit) waits for the load's traffic to end
// (RunIo.untilAlone); the load's redaction of its artefacts, seconds of this event loop, waits for
// the checks' end (RunIo.beforeBlocking); and the load's lines wait for the checks' to be said.

import type { RunIo, Line, StageLines } from '../../stages/run-io.js';

export interface SideBySide<C, L> {
  /** The checks, with what they wait on before their paced phase. */
  checks(extra: Pick<RunIo, 'untilAlone'>): Promise<C>;
  /** The load, with its lines (held), its signal (also stopped by checks that stop the run) and its hold. */
  load(extra: { lines: StageLines; signal: AbortSignal } & Pick<RunIo, 'beforeBlocking'>): Promise<L>;
}

export async function checksBesideLoad<C, L>(
  lines: StageLines,
  signal: AbortSignal,
  run: SideBySide<C, L>,
): Promise<[C, L]> {
  const loadLines = heldLines(lines);
  // Checks that stop the run (a usage error) stop the load's k6 too, before the emulator closes.
  const stopLoad = new AbortController();
  let loadQuiet = noop;
  const loadQuieted = new Promise<void>((resolve) => (loadQuiet = resolve));
  let checksEnd = noop;
  const checksEnded = new Promise<void>((resolve) => (checksEnd = resolve));
  return bothSettled(
    run
      .checks({ untilAlone: () => loadQuieted })
      .then(
        (done) => (loadLines.release(), done),
        (err: unknown) => {
          stopLoad.abort(err);
          throw err;
        },
      )
      .finally(checksEnd),
    run
      .load({
        lines: loadLines,
        signal: AbortSignal.any([signal, stopLoad.signal]),
        beforeBlocking: () => {
          loadQuiet();
          return checksEnded;
        },
      })
      // A load that ends without asking (it threw, or was left out) has no traffic left either.
      .finally(loadQuiet),
  );
}

const noop = () => {};

/** The lines a stage says, its `out` lines held until release() (then said in order, and after it at once). */
function heldLines(lines: StageLines): StageLines & { release(): void } {
  let held: Line[] | undefined = [];
  return {
    err: (line) => lines.err(line),
    progress: (line) => lines.progress(line),
    out: (line) => void (held ? held.push(line) : lines.out(line)),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const line of waiting) lines.out(line);
    },
  };
}

/**
 * Both results once both have ended: a stage that stops the run (its error rethrown) still lets
 * the other end first, so no k6 outlives the run's emulator or report.
 */
async function bothSettled<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}
