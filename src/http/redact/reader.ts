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
// letter and a digit and 10 distinct ones (a random secret or token: 8 of its characters in a row,
// case folded, are ~41 bits, nothing a report says by chance). A value made of letters only (a
// passphrase, a word a service put in a `token` field) or of few characters (a date) is matched
// only whole, so its words never censor the harness's own. A value shorter than 8 characters once normalised is left to the exact forms (matcher.ts),
// which hide it where it stands alone: 8 characters are the least that is evidence by themselves.

import type { Known } from './matcher.js';

export const WINDOW = 8;
/**
 * Distinct letters and digits a value needs to be hunted by windows: a random token or secret of
 * 16+ characters has far more; a date or a counter (`2026-11-29T00:00:00Z`) has fewer, and its
 * windows would hide the report's own dates.
 */
const MIN_DISTINCT = 10;
/** Decoded layers stacked: "hex of base64", "base64 of %-encoded", … */
const LAYERS = 2;
/** Letters and digits are read as 0–35; a window of 8 is one exact number below 36^8 (< 2^53). */
const RADIX = 36;
const TOP = RADIX ** (WINDOW - 1);
/**
 * Slots of the filter find() asks before the window map: a window key is a number up to 36^8, past
 * a small integer, and a Map lookup by it boxes it first, on every character of every view (a
 * report file is ~10 views of 40k characters). Almost no window of a text is a known one, so a
 * byte per slot says "certainly not" without the lookup.
 */
const FILTER_SLOTS = 1 << 16;

/** Characters (UTF-16 codes) with, per character, the span [from, to) of the original input it was read from. */
interface View {
  codes: number[];
  from: number[];
  to: number[];
  length: number;
}

/** A view as compared: its letters and digits (0–35) and where each stands in the view. */
interface Normal {
  view: View;
  digits: number[];
  at: number[];
  length: number;
  text?: string;
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
  /** Matched only whole (a value of words or few characters): no windows. */
  wholeOnly: boolean;
}

interface WindowHit {
  entry: Entry;
  /** Where the window starts in the value's normal form, counted forward. */
  at: number;
}

/** Letters and digits, lower case: what a reader compares. */
export const normalise = (s: string): string => s.replace(/[^A-Za-z0-9]+/g, '').toLowerCase();

const reverse = (s: string): string => Array.from(s).reverse().join('');

const DIGIT = new Int8Array(65536).fill(-1);
for (let i = 0; i < 10; i++) DIGIT[48 + i] = i;
for (let i = 0; i < 26; i++) DIGIT[65 + i] = DIGIT[97 + i] = 10 + i;

/** The exact number of each window of a normal string (letters and digits, lower case). */
function windowKeys(normal: string): number[] {
  const keys: number[] = [];
  let key = 0;
  for (let i = 0; i < normal.length; i++) {
    if (i >= WINDOW) key -= DIGIT[normal.charCodeAt(i - WINDOW)]! * TOP;
    key = key * RADIX + DIGIT[normal.charCodeAt(i)]!;
    if (i >= WINDOW - 1) keys.push(key);
  }
  return keys;
}

const ESCAPE =
  /\\u([0-9a-fA-F]{4})|\\([nrtbf"\\/])|&#(\d{1,7});|&#[xX]([0-9a-fA-F]{1,6});|&(amp|lt|gt|quot|apos);|%([0-9a-fA-F]{2})/y;
const JSON_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12 };
const ENTITIES: Record<string, number> = { amp: 38, lt: 60, gt: 62, quot: 34, apos: 39 };

/** Whitespace, controls and the invisible characters a reader skips (zero-width spaces and joiners, BOM). */
const skipped = (c: number): boolean =>
  c <= 32 ||
  c === 127 ||
  (c >= 128 &&
    (c <= 160 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200d) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x2060 ||
      c === 0x3000 ||
      c === 0xfeff));

/** The escape at `i` as one UTF-16 code (-1: one that decodes to nothing readable), or undefined. */
function escapeAt(input: string, i: number): { code: number; length: number } | undefined {
  ESCAPE.lastIndex = i;
  const m = ESCAPE.exec(input);
  if (!m) return undefined;
  const [all, u, json, dec, hex, entity, pct] = m;
  let code: number;
  if (u !== undefined) code = parseInt(u, 16);
  else if (json !== undefined) code = JSON_ESCAPES[json] ?? json.charCodeAt(0);
  else if (dec !== undefined || hex !== undefined) {
    const n = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    code = n < 65536 ? n : -1;
  } else if (entity !== undefined) code = ENTITIES[entity]!;
  else code = parseInt(pct!, 16);
  return { code, length: all.length };
}

// Plain arrays, not typed ones: most views are short, and a typed array's own buffer costs more to
// allocate than the whole view costs to fill.
class ViewBuilder {
  private readonly codes: number[] = [];
  private readonly from: number[] = [];
  private readonly to: number[] = [];
  push(code: number, from: number, to: number): void {
    this.codes.push(code);
    this.from.push(from);
    this.to.push(to);
  }
  /** Characters a..b of `v` stand for this one. */
  pushFrom(code: number, v: View, a: number, b: number): void {
    this.push(code, Math.min(v.from[a]!, v.from[b]!), Math.max(v.to[a]!, v.to[b]!));
  }
  view(): View | undefined {
    const length = this.codes.length;
    return length >= WINDOW ? { codes: this.codes, from: this.from, to: this.to, length } : undefined;
  }
}

/** The input with escapes decoded and whitespace dropped, each character with its source span. */
function compact(input: string): View {
  const out = new ViewBuilder();
  for (let i = 0; i < input.length;) {
    let code = input.charCodeAt(i);
    let length = 1;
    if (code === 92 || code === 38 || code === 37) {
      const escaped = escapeAt(input, i);
      if (escaped) ({ code, length } = escaped);
    }
    if (code >= 0 && !skipped(code)) out.push(code, i, i + length);
    i += length;
  }
  return out.view() ?? { codes: [], from: [], to: [], length: 0 };
}

/** Each run of characters `value` reads (≥ 0) at least `min` long, as [start, end). */
function runsOf(v: View, value: (c: number) => number, min: number): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < v.length;) {
    if (value(v.codes[i]!) < 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < v.length && value(v.codes[j]!) >= 0) j++;
    if (j - i >= min) runs.push([i, j]);
    i = j;
  }
  return runs;
}

const HEX = new Int8Array(65536).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
const hexValue = (c: number): number => HEX[c]!;

/**
 * Hex runs decoded, starting at an even or an odd character of each run; `backwards`, the runs read
 * from their last character to their first (the view read backwards: a reversed hex string decodes
 * from it), last run first. Only the runs are read either way: nothing else of a view decodes as hex.
 */
function hexViews(v: View, runs: Array<[number, number]>, backwards: boolean): View[] {
  if (runs.length === 0) return [];
  const ordered = backwards ? [...runs].reverse() : runs;
  return [0, 1].flatMap((align) => {
    const out = new ViewBuilder();
    for (const [start, end] of ordered)
      for (let j = align; j + 1 < end - start; j += 2) {
        const a = backwards ? end - 1 - j : start + j;
        const b = backwards ? a - 1 : a + 1;
        out.pushFrom((hexValue(v.codes[a]!) << 4) | hexValue(v.codes[b]!), v, a, b);
      }
    return out.view() ?? [];
  });
}

const BASE64 = new Int8Array(65536).fill(-1);
for (let i = 0; i < 62; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.charCodeAt(i)] = i;
// Both alphabets at once: `+/` (std) and `-_` (url).
BASE64[43] = BASE64[45] = 62;
BASE64[47] = BASE64[95] = 63;
const base64Value = (c: number): number => BASE64[c]!;

/** Base64 runs (either alphabet) decoded as latin1, starting at each of the 4 characters of a quantum. */
function base64Views(v: View): View[] {
  // 12 characters are the least that decode to a window's 8 bytes.
  const runs = runsOf(v, base64Value, Math.ceil((WINDOW * 4) / 3) + 1);
  if (runs.length === 0) return [];
  return [0, 1, 2, 3].flatMap((align) => {
    const out = new ViewBuilder();
    for (const [start, end] of runs) {
      for (let k = start + align; k + 1 < end; k += 4) {
        const c0 = base64Value(v.codes[k]!);
        const c1 = base64Value(v.codes[k + 1]!);
        out.pushFrom(((c0 << 2) | (c1 >> 4)) & 255, v, k, k + 1);
        if (k + 2 >= end) break;
        const c2 = base64Value(v.codes[k + 2]!);
        out.pushFrom(((c1 << 4) | (c2 >> 2)) & 255, v, k + 1, k + 2);
        if (k + 3 >= end) break;
        out.pushFrom(((c2 << 6) | base64Value(v.codes[k + 3]!)) & 255, v, k + 2, k + 3);
      }
    }
    return out.view() ?? [];
  });
}

const MIN_ESCAPES = 3;

/** %-escapes decoded once more (the compact view decoded the first layer). */
function percentViews(v: View): View[] {
  // A layer of %-encoding shows as escapes; a stray `%` (in words, or in decoded bytes) is none.
  let escapes = 0;
  for (let k = 0; k + 2 < v.length && escapes < MIN_ESCAPES; k++)
    if (v.codes[k] === 37 && hexValue(v.codes[k + 1]!) >= 0 && hexValue(v.codes[k + 2]!) >= 0) escapes++;
  if (escapes < MIN_ESCAPES) return [];
  const out = new ViewBuilder();
  for (let k = 0; k < v.length; k++) {
    const escape =
      v.codes[k] === 37 && k + 2 < v.length && hexValue(v.codes[k + 1]!) >= 0 && hexValue(v.codes[k + 2]!) >= 0;
    if (escape) {
      out.pushFrom((hexValue(v.codes[k + 1]!) << 4) | hexValue(v.codes[k + 2]!), v, k, k + 2);
      k += 2;
    } else out.push(v.codes[k]!, v.from[k]!, v.to[k]!);
  }
  return [out.view() ?? []].flat();
}

/** Each way a view decodes one layer deeper: hex, base64, %-escapes, and hex read backwards. */
function decoded(v: View): View[] {
  const hexRuns = runsOf(v, hexValue, 2 * WINDOW);
  return [...hexViews(v, hexRuns, false), ...base64Views(v), ...percentViews(v), ...hexViews(v, hexRuns, true)];
}

/** Every way of reading the input, as compared: as it is, and up to LAYERS decodings deep, forward and reversed. */
function readingsOf(input: string): Normal[] {
  const plain = compact(input);
  const views: View[] = [plain];
  if (plain.length < WINDOW) return [normalView(plain)];
  // "Reversed hex" is a layer of its own: every view is read backwards too, for hex (a reversed
  // base64 string is no encoding anyone writes; a reversed value is found by reversed windows).
  let layer = [plain];
  for (let depth = 0; depth < LAYERS; depth++) {
    layer = layer.flatMap(decoded);
    views.push(...layer);
  }
  return views.map(normalView).filter((n) => n.length >= WINDOW);
}

function normalView(view: View): Normal {
  const digits: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < view.length; i++) {
    const d = DIGIT[view.codes[i]!]!;
    if (d >= 0) {
      digits.push(d);
      at.push(i);
    }
  }
  return { view, digits, at, length: digits.length };
}

const normalText = (r: Normal): string => (r.text ??= r.digits.map((d) => d.toString(RADIX)).join(''));

/** The span of the input that characters first..first+length of a reading stand for. */
function spanOf(r: Normal, first: number, length: number): [number, number] {
  const a = r.at[first]!;
  const b = r.at[first + length - 1]!;
  return [Math.min(r.view.from[a]!, r.view.from[b]!), Math.max(r.view.to[a]!, r.view.to[b]!)];
}

/** The windows of the last `keep` a matcher was built with (never changed after). */
let keepWindows: { keep: string; keys: ReadonlySet<number> } | undefined;

export class ReaderMatcher {
  private readonly windows = new Map<number, WindowHit[]>();
  /** 1 where some window of the map falls (key mod FILTER_SLOTS); 0: no window there. */
  private readonly filter = new Uint8Array(FILTER_SLOTS);
  private readonly wholeOnly: Entry[] = [];
  private readonly values = new Map<string, Entry>();
  private readonly keep: ReadonlySet<number>;
  /** The last input's readings: a redaction and two judgements of one answer read it once. */
  private last: { input: string; readings: Normal[] } | undefined;

  /** `keep`: the harness's own words; a window that is also one of theirs is not hunted. */
  constructor(keep = '') {
    // The CLI builds more than one redactor with the same words (~10 ms each): read once.
    if (keepWindows?.keep !== keep) keepWindows = { keep, keys: new Set(windowKeys(normalise(keep))) };
    this.keep = keepWindows.keys;
  }

  get size(): number {
    return this.values.size;
  }

  /** A value to find; one too short to read by windows (under 8 letters and digits) is ignored here. */
  add(value: string, known: Known): void {
    const normal = normalise(value);
    if (normal.length < WINDOW || this.values.has(value)) return;
    const wholeOnly = !/[0-9]/.test(normal) || !/[a-z]/.test(normal) || new Set(normal).size < MIN_DISTINCT;
    const entry: Entry = { known, normal, wholeOnly };
    this.values.set(value, entry);
    if (wholeOnly) {
      this.wholeOnly.push(entry);
      return;
    }
    const n = normal.length;
    windowKeys(normal).forEach((key, at) => this.index(key, { entry, at }));
    // The reversed value's window starting at `at` holds the forward characters n-at-8 … n-at.
    windowKeys(reverse(normal)).forEach((key, at) => this.index(key, { entry, at: n - at - WINDOW }));
  }

  /** Every span of the input that shows (a piece of) a known value, with whether the value is there whole. */
  find(input: string, which: (k: Known) => boolean = () => true): ReadFound[] {
    if (this.values.size === 0 || input.length < WINDOW) return [];
    if (this.last?.input !== input) this.last = { input, readings: readingsOf(input) };
    const spans: Array<{ start: number; end: number; entry: Entry }> = [];
    const covered = new Map<Entry, Uint8Array>();
    const found = (entry: Entry, r: Normal, first: number, length: number, at: number) => {
      const [start, end] = spanOf(r, first, length);
      spans.push({ start, end, entry });
      let bits = covered.get(entry);
      if (!bits) covered.set(entry, (bits = new Uint8Array(entry.normal.length)));
      bits.fill(1, at, at + length);
    };
    for (const r of this.last.readings) {
      if (this.windows.size > 0) {
        let key = 0;
        for (let i = 0; i < r.length; i++) {
          if (i >= WINDOW) key -= r.digits[i - WINDOW]! * TOP;
          key = key * RADIX + r.digits[i]!;
          if (i < WINDOW - 1 || this.filter[key % FILTER_SLOTS] === 0) continue;
          const hits = this.windows.get(key);
          if (hits)
            for (const hit of hits) if (which(hit.entry.known)) found(hit.entry, r, i - WINDOW + 1, WINDOW, hit.at);
        }
      }
      for (const entry of this.wholeOnly) {
        if (!which(entry.known)) continue;
        const text = normalText(r);
        for (const form of [entry.normal, reverse(entry.normal)])
          for (let i = text.indexOf(form); i >= 0; i = text.indexOf(form, i + 1)) found(entry, r, i, form.length, 0);
      }
    }
    const whole = new Set([...covered].filter(([, bits]) => bits.every((b) => b === 1)).map(([e]) => e));
    return spans.map(({ start, end, entry }) => ({ start, end, known: entry.known, whole: whole.has(entry) }));
  }

  private index(key: number, hit: WindowHit): void {
    if (this.keep.has(key)) return;
    this.filter[key % FILTER_SLOTS] = 1;
    const list = this.windows.get(key);
    if (list) list.push(hit);
    else this.windows.set(key, [hit]);
  }
}
