// Finds known values as a reader would read them, whatever the layout or encoding: spaced out,
// broken across lines, upper- or lower-cased, hex, base64 or base64url, %-encoded, reversed, and
// any two of these stacked. Listing forms one at a time (encodings.ts) did not converge: each new
// layout was a new leak. Here the TEXT is read instead:
// - its escapes are decoded (JSON `\n` `\"` `\u0041`, HTML `&#65;` `&amp;`, `%41`) and whitespace
//   and invisible characters dropped, each remaining character keeping the span of the input it
//   stands for (a View);
// - that view is decoded again as hex, base64 (either alphabet, at each alignment) and %-encoding,
//   and each of those once more: two layers; the same from the reversed text, which reads a
//   reversed hex or base64 string;
// - every view is normalised (letters and digits only, lower case) and each 8-character window of
//   it looked up among the windows of every known value, forward and reversed (one hash lookup per
//   character per view, so the cost stays linear in the text).
// A window found maps back to the span of the input it came from, so the right characters are
// replaced, a value broken by a line or spread over two fields included. A value is held WHOLE by a
// text when its windows found there cover every character of it: pieces in several fields of one
// answer count as the value.
//
// What is matched by windows: a value whose normalised form has 8 characters or more, with both a
// letter and a digit (a random secret or token: 8 of its characters in a row, case folded, are ~41
// bits, nothing a report says by chance). A value made of letters only (a passphrase, a word a
// service put in a `token` field) is matched only whole, so its words never censor the harness's
// own. A value shorter than 8 characters once normalised is left to the exact forms (matcher.ts),
// which hide it where it stands alone: 8 characters are the least that is evidence by themselves.

import type { Known } from './matcher.js';

export const WINDOW = 8;
/** Decoded layers stacked: "hex of base64", "base64 of %-encoded", … */
const LAYERS = 2;

/** Text with, per character, the span [from, to) of the original input it was read from. */
interface View {
  text: string;
  from: number[];
  to: number[];
}

export interface ReadFound {
  start: number;
  end: number;
  known: Known;
  /** Every character of the value is covered by windows found in this input. */
  whole: boolean;
}

interface Entry {
  known: Known;
  /** Letters and digits of the value, lower case. */
  normal: string;
  /** Matched only whole (a value of words): no windows. */
  wholeOnly: boolean;
}

interface WindowHit {
  entry: Entry;
  /** Where the window starts in the value's normal form, counted forward. */
  at: number;
}

const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/** Letters and digits, lower case: what a reader compares. */
export const normalise = (s: string): string => s.replace(/[^A-Za-z0-9]+/g, '').toLowerCase();

const reverse = (s: string): string => Array.from(s).reverse().join('');

const ESCAPE =
  /\\u([0-9a-fA-F]{4})|\\([nrtbf"\\/])|&#(\d{1,7});|&#[xX]([0-9a-fA-F]{1,6});|&(amp|lt|gt|quot|apos);|%([0-9a-fA-F]{2})/y;
const JSON_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// Whitespace, controls and the invisible characters a reader skips (zero-width spaces and joiners, BOM).
const SKIPPED = /[\s\u0000-\u001f\u007f\u200b-\u200d\u2060\ufeff]/;

function escapeAt(input: string, i: number): { char: string; length: number } | undefined {
  ESCAPE.lastIndex = i;
  const m = ESCAPE.exec(input);
  if (!m) return undefined;
  const [all, u, json, dec, hex, entity, pct] = m;
  let char: string;
  if (u !== undefined) char = String.fromCharCode(parseInt(u, 16));
  else if (json !== undefined) char = JSON_ESCAPES[json] ?? json;
  else if (dec !== undefined || hex !== undefined) {
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    char = code <= 0x10ffff ? String.fromCodePoint(code) : '';
  } else if (entity !== undefined) char = ENTITIES[entity]!;
  else char = String.fromCharCode(parseInt(pct!, 16));
  return { char, length: all.length };
}

/** The input with escapes decoded and whitespace dropped, each character with its source span. */
function compact(input: string): View {
  const text: string[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < input.length;) {
    const c = input[i]!;
    const escaped = c === '\\' || c === '&' || c === '%' ? escapeAt(input, i) : undefined;
    const char = escaped ? escaped.char : c;
    const length = escaped ? escaped.length : 1;
    if (char !== '' && !SKIPPED.test(char)) {
      text.push(char);
      from.push(i);
      to.push(i + length);
    }
    i += length;
  }
  return { text: text.join(''), from, to };
}

/** The view read backwards: a reversed hex or base64 string decodes from it. */
function reversed(v: View): View {
  return { text: reverse(v.text), from: [...v.from].reverse(), to: [...v.to].reverse() };
}

class ViewBuilder {
  private readonly chars: string[] = [];
  readonly from: number[] = [];
  readonly to: number[] = [];
  push(char: string, from: number, to: number): void {
    this.chars.push(char);
    this.from.push(Math.min(from, to));
    this.to.push(Math.max(from, to));
  }
  view(): View | undefined {
    return this.chars.length >= WINDOW ? { text: this.chars.join(''), from: this.from, to: this.to } : undefined;
  }
}

const span = (v: View, a: number, b: number): [number, number] => [
  Math.min(v.from[a]!, v.from[b]!),
  Math.max(v.to[a]!, v.to[b]!),
];

/** Each run of `alphabet` characters at least `min` long, as [start, end). */
function runsOf(text: string, inAlphabet: (c: number) => boolean, min: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < text.length;) {
    if (!inAlphabet(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && inAlphabet(text.charCodeAt(j))) j++;
    if (j - i >= min) runs.push([i, j]);
    i = j;
  }
  return runs;
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Hex runs decoded, starting at an even or an odd character of each run. */
function hexViews(v: View): View[] {
  const runs = runsOf(v.text, isHex, 2 * WINDOW);
  if (runs.length === 0) return [];
  return [0, 1].flatMap((align) => {
    const out = new ViewBuilder();
    for (const [start, end] of runs) {
      for (let k = start + align; k + 1 < end; k += 2) {
        const [a, b] = span(v, k, k + 1);
        out.push(String.fromCharCode(parseInt(v.text.substr(k, 2), 16)), a, b);
      }
    }
    return out.view() ?? [];
  });
}

const BASE64 = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('').forEach((c, i) => {
  BASE64[c.charCodeAt(0)] = i;
});
// Both alphabets at once: `+/` (std) and `-_` (url).
BASE64['+'.charCodeAt(0)] = BASE64['-'.charCodeAt(0)] = 62;
BASE64['/'.charCodeAt(0)] = BASE64['_'.charCodeAt(0)] = 63;
const isBase64 = (c: number): boolean => c < 128 && BASE64[c]! >= 0;

/** Base64 runs (either alphabet) decoded as latin1, starting at each of the 4 characters of a quantum. */
function base64Views(v: View): View[] {
  // 12 characters are the least that decode to a window's 8 bytes.
  const runs = runsOf(v.text, isBase64, Math.ceil((WINDOW * 4) / 3) + 1);
  if (runs.length === 0) return [];
  return [0, 1, 2, 3].flatMap((align) => {
    const out = new ViewBuilder();
    for (const [start, end] of runs) {
      for (let k = start + align; k + 1 < end; k += 4) {
        const c = [0, 1, 2, 3].map((d) => (k + d < end ? BASE64[v.text.charCodeAt(k + d)]! : -1));
        const [c0, c1, c2, c3] = c as [number, number, number, number];
        let [a, b] = span(v, k, k + 1);
        out.push(String.fromCharCode(((c0 << 2) | (c1 >> 4)) & 255), a, b);
        if (c2 < 0) break;
        [a, b] = span(v, k + 1, k + 2);
        out.push(String.fromCharCode(((c1 << 4) | (c2 >> 2)) & 255), a, b);
        if (c3 < 0) break;
        [a, b] = span(v, k + 2, k + 3);
        out.push(String.fromCharCode(((c2 << 6) | c3) & 255), a, b);
      }
    }
    return out.view() ?? [];
  });
}

/** %-escapes decoded once more (the compact view decoded the first layer). */
function percentViews(v: View): View[] {
  if (!v.text.includes('%')) return [];
  const out = new ViewBuilder();
  for (let k = 0; k < v.text.length; k++) {
    const pct = v.text[k] === '%' && isHex(v.text.charCodeAt(k + 1)) && isHex(v.text.charCodeAt(k + 2));
    if (pct) {
      const [a, b] = span(v, k, k + 2);
      out.push(String.fromCharCode(parseInt(v.text.substr(k + 1, 2), 16)), a, b);
      k += 2;
    } else out.push(v.text[k]!, v.from[k]!, v.to[k]!);
  }
  return [out.view() ?? []].flat();
}

const decoded = (v: View): View[] => [...hexViews(v), ...base64Views(v), ...percentViews(v)];

/** Every way of reading the input: as it is, and up to LAYERS decodings deep, forward and reversed. */
function viewsOf(input: string): View[] {
  const plain = compact(input);
  const views: View[] = [plain];
  let layer = [plain, reversed(plain)];
  for (let depth = 0; depth < LAYERS; depth++) {
    layer = layer.flatMap(decoded);
    views.push(...layer);
  }
  return views;
}

export class ReaderMatcher {
  private readonly windows = new Map<string, WindowHit[]>();
  private readonly wholeOnly: Entry[] = [];
  private readonly values = new Map<string, Entry>();
  private readonly keep: ReadonlySet<string>;

  /** `keep`: the harness's own words; a window that is also one of theirs is not hunted. */
  constructor(keep = '') {
    const normal = normalise(keep);
    const set = new Set<string>();
    for (let i = 0; i + WINDOW <= normal.length; i++) set.add(normal.substr(i, WINDOW));
    this.keep = set;
  }

  get size(): number {
    return this.values.size;
  }

  /** A value to find; one too short to read by windows (under 8 letters and digits) is ignored here. */
  add(value: string, known: Known): void {
    const normal = normalise(value);
    if (normal.length < WINDOW || this.values.has(value)) return;
    const wholeOnly = !/[0-9]/.test(normal) || !/[a-z]/.test(normal);
    const entry: Entry = { known, normal, wholeOnly };
    this.values.set(value, entry);
    if (wholeOnly) {
      this.wholeOnly.push(entry);
      return;
    }
    const back = reverse(normal);
    const n = normal.length;
    for (let at = 0; at + WINDOW <= n; at++) {
      this.index(normal.substr(at, WINDOW), { entry, at });
      // The reversed value's window starting at `at` holds the forward characters n-at-8 … n-at.
      this.index(back.substr(at, WINDOW), { entry, at: n - at - WINDOW });
    }
  }

  /** Every span of the input that shows (a piece of) a known value, with whether the value is there whole. */
  find(input: string, which: (k: Known) => boolean = () => true): ReadFound[] {
    if (this.values.size === 0 || input.length < WINDOW) return [];
    const spans: Array<{ start: number; end: number; entry: Entry }> = [];
    const covered = new Map<Entry, Uint8Array>();
    const cover = (entry: Entry, at: number, length: number) => {
      let bits = covered.get(entry);
      if (!bits) covered.set(entry, (bits = new Uint8Array(entry.normal.length)));
      bits.fill(1, at, at + length);
    };
    for (const view of viewsOf(input)) {
      const positions: number[] = [];
      const chars: string[] = [];
      for (let i = 0; i < view.text.length; i++) {
        if (isAlnum(view.text.charCodeAt(i))) {
          positions.push(i);
          chars.push(view.text[i]!);
        }
      }
      const normal = chars.join('').toLowerCase();
      const at = (first: number, length: number) => span(view, positions[first]!, positions[first + length - 1]!);
      for (let i = 0; i + WINDOW <= normal.length; i++) {
        const hits = this.windows.get(normal.substr(i, WINDOW));
        if (!hits) continue;
        for (const hit of hits) {
          if (!which(hit.entry.known)) continue;
          const [start, end] = at(i, WINDOW);
          spans.push({ start, end, entry: hit.entry });
          cover(hit.entry, hit.at, WINDOW);
        }
      }
      for (const entry of this.wholeOnly) {
        if (!which(entry.known)) continue;
        for (const form of [entry.normal, reverse(entry.normal)]) {
          for (let i = normal.indexOf(form); i >= 0; i = normal.indexOf(form, i + 1)) {
            const [start, end] = at(i, form.length);
            spans.push({ start, end, entry });
            cover(entry, 0, form.length);
          }
        }
      }
    }
    const whole = new Set([...covered].filter(([, bits]) => bits.every((b) => b === 1)).map(([e]) => e));
    return spans.map(({ start, end, entry }) => ({ start, end, known: entry.known, whole: whole.has(entry) }));
  }

  private index(window: string, hit: WindowHit): void {
    if (this.keep.has(window)) return;
    const list = this.windows.get(window);
    if (list) list.push(hit);
    else this.windows.set(window, [hit]);
  }
}
