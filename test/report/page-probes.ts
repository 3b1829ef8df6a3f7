// Functions that run inside report.html in Chromium (page.evaluate). Each is serialised into the
// page, so it may use nothing from outside its own body.

// The page's globals. The test project compiles without the DOM library (Node code must not see
// browser types), so they are declared here, loosely, for these functions alone.
declare const document: any;
declare const getComputedStyle: (e: any) => any;
declare const NodeFilter: { SHOW_TEXT: number };

/** How wide the page lays out: wider than the window means it scrolls sideways. */
export const pageWidth = (): number => document.documentElement.scrollWidth;

/** The computed colour that means pass, and the fill of each p99 bar of the latency chart. */
export function p99Colours(): { pass: string; p99: string[] } {
  const swatch = document.createElement('span');
  swatch.style.color = 'var(--pass)';
  document.body.append(swatch);
  const pass: string = getComputedStyle(swatch).color;
  swatch.remove();
  const bars: any[] = [...document.querySelectorAll('#chart-latency rect')];
  const p99 = bars
    .filter((r) => r.querySelector('title')?.textContent?.includes(' p99: '))
    .map((r) => String(getComputedStyle(r).fill));
  return { pass, p99 };
}

// Tofu: characters the page shows that no font it can use has, which Chromium then draws as the
// missing-glyph box. Each character is drawn on a canvas in the font of the element that shows
// it and compared, pixel for pixel, with the same font's drawing of an unassigned code point,
// which no font has.

export interface TofuReport {
  /** Every distinct non-ASCII character the page shows, with the font it is shown in. */
  chars: string[];
  /** Those drawn as the missing-glyph box. */
  missing: string[];
  /** The detector on known cases: an unassigned code point must count as missing, a letter must not. */
  probe: { unassigned: boolean; letter: boolean };
}

export function findTofu(): TofuReport {
  const canvas = document.createElement('canvas');
  canvas.width = 48;
  canvas.height = 48;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const draw = (font: string, text: string): string => {
    ctx.clearRect(0, 0, 48, 48);
    ctx.font = `32px ${font}`;
    ctx.fillStyle = '#000';
    ctx.textBaseline = 'top';
    ctx.fillText(text, 4, 4);
    const width = Math.round(ctx.measureText(text).width * 10);
    return `${width}:${ctx.getImageData(0, 0, 48, 48).data.join(',')}`;
  };
  // U+0378 and U+0379 are unassigned (Greek block gaps): no font can have them.
  const isMissing = (font: string, ch: string): boolean => draw(font, ch) === draw(font, '\u0378');

  const byFont = new Map<string, Set<string>>();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent === null || parent.closest('title, desc') !== null) continue;
    const font = getComputedStyle(parent).fontFamily;
    for (const ch of node.textContent ?? '') {
      if (ch.codePointAt(0)! < 0x80 || /\s/.test(ch)) continue;
      (byFont.get(font) ?? byFont.set(font, new Set()).get(font)!).add(ch);
    }
  }
  const chars: string[] = [];
  const missing: string[] = [];
  for (const [font, set] of byFont) {
    for (const ch of set) {
      chars.push(`${ch} (${font})`);
      if (isMissing(font, ch)) missing.push(`${ch} U+${ch.codePointAt(0)!.toString(16).toUpperCase()} in ${font}`);
    }
  }
  const body = getComputedStyle(document.body).fontFamily;
  return { chars, missing, probe: { unassigned: isMissing(body, '\u0379'), letter: isMissing(body, 'A') } };
}

/** Elements matching `selector` whose content is wider than their box: each scrolls, or cuts, sideways. */
export function overflowing(selector: string): Array<{ selector: string; client: number; scroll: number }> {
  return [...document.querySelectorAll(selector)]
    .filter((e: any) => e.scrollWidth > e.clientWidth)
    .map((e: any) => ({ selector, client: e.clientWidth, scroll: e.scrollWidth }));
}

/** Pairs of phase labels of the rate-limit chart whose drawn text boxes overlap, and how many labels it draws. */
export function overlappingPhaseLabels(): { labels: number; overlaps: string[] } {
  const boxes = [...document.querySelectorAll('#chart-rate-limit .band text')].map((t: any) => ({
    text: String(t.textContent),
    box: t.getBoundingClientRect(),
  }));
  const overlaps: string[] = [];
  boxes.forEach((a, i) => {
    for (const b of boxes.slice(i + 1)) {
      const apart =
        a.box.right <= b.box.left ||
        b.box.right <= a.box.left ||
        a.box.bottom <= b.box.top ||
        b.box.bottom <= a.box.top;
      if (!apart) overlaps.push(`${a.text} × ${b.text}`);
    }
  });
  return { labels: boxes.length, overlaps };
}
