// A sliding-window counter's limit once its window is known to be whole seconds (its edges on the
// clock, or its announced resets stepping by them): what the drain let through is the limit only
// when the drain sat inside one window. A drain from idle that straddles an edge passes more: the
// window after the edge weighs what passed before it by the share still to come, and that share
// shrinks while the drain runs (httprate 200 per 10 s across 50 ± 10 ms: 202 and 205 passed, read
// as 202 and 205 per 10 s, 20.2 and 20.5 req/s, above its 20). The limit the service announces,
// where it is a little below, caps it then. The stream's rate over the window cannot: it reads up
// to 1 / (limit − 1) low (a silent 50 per 1 s at loopback, capped by it, read 49 per 1 s).

import type { Probe } from './probe.js';

/** An announced limit this far below what the drain passed is the drain's edge, not another limit. */
const ANNOUNCED_BELOW = 0.05;

/** The counter's limit: what the drain passed (`drained`), or the announced limit a little below it. */
export function counterLimit(probe: Pick<Probe, 'advertisements'>, drained: number): number {
  const announced = probe.advertisements.last?.ad.limit;
  return announced !== undefined && announced < drained && announced >= (1 - ANNOUNCED_BELOW) * drained
    ? announced
    : drained;
}

/** What the limit announced said of the drain, when it took the drain's place: nothing otherwise. */
export const straddledEvidence = (drained: number, limit: number): string[] =>
  limit < drained
    ? [`the drain passed ${drained}, more than the ${limit} the service announces: it straddled an edge`]
    : [];
