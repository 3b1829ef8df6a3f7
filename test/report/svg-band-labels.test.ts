// Where the rate-limit chart names its phases: never two names on the same spot, a name inside its
// band when it fits, below (and within the plot) when it does not, left out when no row is free.

import { describe, expect, it } from 'vitest';
import { labelWidth, OVERFLOW_ROWS, placeBandLabels, type BandSpan } from '../../src/report/common/svg-band-labels.js';

const PLOT = { left: 56, right: 624 };

function overlaps(bands: readonly BandSpan[]): string[] {
  const places = placeBandLabels(bands, PLOT);
  const drawn = bands.flatMap((b, i) => {
    const p = places[i];
    return p ? [{ label: b.label, row: p.row, x0: p.x, x1: p.x + labelWidth(b.label) }] : [];
  });
  return drawn.flatMap((a, i) =>
    drawn
      .slice(i + 1)
      .filter((b) => a.row === b.row && a.x0 < b.x1 && b.x0 < a.x1)
      .map((b) => `${a.label} × ${b.label}`),
  );
}

describe('placeBandLabels', () => {
  it('puts a name that fits inside its band, at the band top', () => {
    expect(placeBandLabels([{ label: 'wait', from: 300, to: 476 }], PLOT)).toEqual([{ x: 303, row: 0 }]);
  });

  it("sets the names of a real probe's narrow drain and refill on different rows, inside the plot", () => {
    // The 100 ms probe of a real run: drain 0–0.3 s and refill 0.3–0.4 s on a 5.8 s axis.
    const bands = [
      { label: 'drain', from: 56, to: 85.4 },
      { label: 'refill', from: 85.4, to: 95.2 },
      { label: 'sustained', from: 95.2, to: 300.8 },
      { label: 'retry-after', from: 614.2, to: 624 },
    ];
    const places = placeBandLabels(bands, PLOT);
    expect(places.map((p) => p?.row)).toEqual([1, 2, 0, 1]);
    for (const [i, p] of places.entries()) {
      expect(p!.x).toBeGreaterThanOrEqual(PLOT.left);
      expect(p!.x + labelWidth(bands[i]!.label)).toBeLessThanOrEqual(PLOT.right);
    }
    expect(overlaps(bands)).toEqual([]);
  });

  it('leaves a name out rather than draw it over another when every row is taken', () => {
    const bands = Array.from({ length: OVERFLOW_ROWS + 3 }, (_, i) => ({
      label: `phase${i}`,
      from: 200 + i * 5,
      to: 205 + i * 5,
    }));
    const places = placeBandLabels(bands, PLOT);
    expect(places.filter((p) => p === null).length).toBeGreaterThan(0);
    expect(places.filter((p) => p !== null)).toHaveLength(OVERFLOW_ROWS);
    expect(overlaps(bands)).toEqual([]);
  });

  it('never overlaps two names, for many bands of random widths', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const names = ['drain', 'refill', 'sustained', 'wait', 'burst', 'retry-after'];
    for (let run = 0; run < 200; run++) {
      let at = PLOT.left;
      const bands: BandSpan[] = [];
      while (at < PLOT.right) {
        const to = Math.min(PLOT.right, at + 2 + random() * 120);
        bands.push({ label: names[Math.floor(random() * names.length)]!, from: at, to });
        at = to;
      }
      expect(overlaps(bands)).toEqual([]);
    }
  });
});
