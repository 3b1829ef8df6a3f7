// An edge seen before the walk's own (behind a faster limit, the stream's comeback after its long
// shut: behind-front.ts) joins the window's lattice only where exactly one count of windows between
// it and the walk's first edge fits them all and a window as long as the limit was seen shut
// (window-edges.ts placedLead); one that fits no lattice with the walk's edges is no edge of this
// window (a minute's comeback behind a second's window, a log's frontier) and is dropped, so it never
// pins a length the walk's own edges refute.

import { describe, expect, it } from 'vitest';
import { placedLead } from '../../src/ratelimit/probe/window-edges.js';

/** An edge at `ms`, bracketed `widthMs` wide after it. */
const at = (ms: number, widthMs = 20) => ({ lo: ms, hi: ms + widthMs });

describe('an earlier edge placed before the edge walk', () => {
  it('one window before the first edge: placed as soon as the shut rules out two', () => {
    // Shut 7 s before the first edge: the window is 7 s or more, so 10 s back is one window, not two.
    expect(placedLead(undefined, at(10_000), [at(20_000, 200)], 7_000)).toEqual([at(10_000)]);
  });

  it('two windows back, with the windows between unseen', () => {
    const lead = placedLead(undefined, at(10_000), [at(30_000, 200), at(40_000, 200)], 7_000);
    expect(lead).toHaveLength(2);
    expect(lead![0]).toEqual(at(10_000));
    expect(lead![1]).toEqual({ lo: -Infinity, hi: Infinity });
  });

  it('not yet, while one edge leaves several counts of windows', () => {
    // Shut 3 s only: 20 s back may be one window of 20 s, two of 10, or more.
    expect(placedLead(undefined, at(10_000), [at(30_000, 200)], 3_000)).toBeUndefined();
  });

  it('left out when no count fits the walk’s own edges', () => {
    // The walk's edges 10 s apart; 13.5 s back is no whole number of them.
    expect(placedLead(undefined, at(6_500), [at(20_000, 100), at(30_000, 100)], 7_000)).toEqual([]);
  });

  it('dropped once a later edge fits the walk’s edges but not it', () => {
    // Placed at one window back (a 7 s shut), then the walk finds its windows 8 s long: 10 s back fits none.
    const lead = placedLead(undefined, at(10_000), [at(20_000, 200)], 7_000);
    expect(lead).toEqual([at(10_000)]);
    expect(placedLead(lead, at(10_000), [at(20_000, 200), at(28_000, 50), at(36_000, 50)], 7_000)).toEqual([]);
  });

  it('kept while later edges fit it', () => {
    const lead = [at(10_000)];
    expect(placedLead(lead, at(10_000), [at(20_000, 200), at(30_000, 50)], 7_000)).toBe(lead);
  });
});
