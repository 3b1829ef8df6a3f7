// Where the names of a chart's shaded bands go, so that no two ever overlap. A name that fits
// inside its band sits at the band's top left. One that does not (a 100 ms "refill" beside a
// 300 ms "drain") drops to a lower row, ending at its band's right edge, on the first row where it
// touches no other name; with every row taken it is left out (the band keeps its tooltip, and the
// figure's caption and data table name every phase). Pure arithmetic: SVG text cannot be measured
// before it is drawn, so widths are estimated on the safe side.

/** A band's span on the chart, px. */
export interface BandSpan {
  label: string;
  from: number;
  to: number;
}

/** Where a band's name is drawn: its left end, px, and its row (0 inside the band, 1… below); null when left out. */
export type LabelPlace = { x: number; row: number } | null;

// An 11 px system-ui lowercase letter is 6–7 px wide in DejaVu Sans (Debian's Chromium default),
// wider in no common fallback; 7 px keeps the estimate above the drawn width.
const CHAR_PX = 7;
// Room kept between two names on one row, and between a name and its band's edges.
const GAP_PX = 4;
/** Rows below the band-top row that overflowing names may take; more would cover the curves. */
export const OVERFLOW_ROWS = 2;

export const labelWidth = (label: string): number => label.length * CHAR_PX;

export function placeBandLabels(bands: readonly BandSpan[], plot: { left: number; right: number }): LabelPlace[] {
  const taken: Array<Array<[number, number]>> = Array.from({ length: OVERFLOW_ROWS + 1 }, () => []);
  const free = (row: number, x0: number, x1: number): boolean =>
    (taken[row] ?? []).every(([a, b]) => x1 + GAP_PX <= a || b + GAP_PX <= x0);
  const take = (row: number, x0: number, x1: number): LabelPlace => {
    taken[row]?.push([x0, x1]);
    return { x: x0, row };
  };
  return bands.map((b) => {
    const width = labelWidth(b.label);
    const inside = b.from + GAP_PX - 1;
    if (b.to - b.from >= width + 2 * GAP_PX && free(0, inside, inside + width)) return take(0, inside, inside + width);
    // Ending at the band's right edge, but never past the plot's edges.
    const x = Math.max(plot.left, Math.min(b.to - GAP_PX / 2 - width, plot.right - width));
    for (let row = 1; row <= OVERFLOW_ROWS; row++) if (free(row, x, x + width)) return take(row, x, x + width);
    return null;
  });
}
