// Finds known values in a text, in every form (encodings.ts), whole or as a fragment long enough to
// give most of one away. The forms are computed once per value and indexed by a short key, so a
// search is one hash lookup per character of the text, whatever the number of values.
//
// Only every STRIDE-th run of units is indexed: a fragment of F units always holds an indexed run of
// F - STRIDE + 1 units starting at a multiple of STRIDE, and a hit is then extended unit by unit to
// both sides, so the whole occurrence is found. This keeps the index a quarter of the size.

import { formsOf, type Form } from './encodings.js';

/** A form this short (an encoding of a 1–5 character value) only counts standing alone. */
export const MIN_FREE_STANDING = 6;
const STRIDE = 4;
/** Characters of an indexed run that key the index. */
const KEY = 8;

export type ValueKind = 'secret' | 'token';

/** What a known value is, and what to write in its place. */
export interface Known {
  kind: ValueKind;
  mark: string;
  /** Told to the service by the run's configuration or issued to the run: what judgements use. */
  judged: boolean;
}

interface Run {
  form: Form;
  /** The first unit of the run. */
  at: number;
  /** Units in the run. */
  length: number;
  text: string;
  known: Known;
}

export interface Found {
  start: number;
  end: number;
  known: Known;
  /** The whole value in one form, not only a fragment of it. */
  whole: boolean;
}

export class ValueMatcher {
  private readonly keyed = new Map<string, Run[]>();
  /**
   * The first two characters of every key, as a bit set over their low bytes: most places in a text
   * start no key, and this tells so without cutting out and hashing 8 characters there.
   */
  private readonly starts = new Uint8Array(65536 / 8);
  /** Runs shorter than KEY characters: searched for one by one. */
  private readonly short: Run[] = [];
  private readonly values = new Map<string, Known>();

  get size(): number {
    return this.values.size;
  }

  has(value: string): Known | undefined {
    return this.values.get(value);
  }

  /** A value, in every form of encodings.ts, or only in the `forms` given. */
  add(value: string, known: Known, forms: Form[] = formsOf(value)): void {
    const before = this.values.get(value);
    if (before) {
      // Once judged, always judged; a secret stays a secret.
      before.judged ||= known.judged;
      return;
    }
    this.values.set(value, known);
    for (const form of forms) {
      const whole = form.units.length <= form.fragmentUnits;
      const length = whole ? form.units.length : form.fragmentUnits - STRIDE + 1;
      for (let at = 0; at + length <= form.units.length; at += whole ? Infinity : STRIDE) {
        const text = form.units.slice(at, at + length).join('');
        const run: Run = { form, at, length, text, known };
        if (text.length < KEY) this.short.push(run);
        else {
          const key = text.slice(0, KEY);
          const pair = pairAt(key, 0);
          this.starts[pair >> 3]! |= 1 << (pair & 7);
          const list = this.keyed.get(key);
          if (list) list.push(run);
          else this.keyed.set(key, [run]);
        }
      }
    }
  }

  /** Every occurrence, overlapping ones merged (a secret's mark wins over a token's); in order. */
  find(input: string, which: (k: Known) => boolean = () => true): Found[] {
    return merge(this.occurrences(input, which));
  }

  /** Every occurrence as found, unmerged: overlapping ones of different values each keep their own. */
  occurrences(input: string, which: (k: Known) => boolean = () => true): Found[] {
    const found: Found[] = [];
    const hit = (run: Run, i: number) => {
      if (!which(run.known)) return;
      const occurrence = this.extend(input, run, i);
      if (occurrence) found.push(occurrence);
    };
    if (this.keyed.size > 0) {
      for (let i = 0; i + KEY <= input.length; i++) {
        const pair = pairAt(input, i);
        if ((this.starts[pair >> 3]! & (1 << (pair & 7))) === 0) continue;
        const runs = this.keyed.get(input.substr(i, KEY));
        if (runs) for (const run of runs) if (input.startsWith(run.text, i)) hit(run, i);
      }
    }
    for (const run of this.short) {
      for (let i = input.indexOf(run.text); i >= 0; i = input.indexOf(run.text, i + 1)) {
        if (run.text.length >= MIN_FREE_STANDING || standsAlone(input, i, run.text.length)) hit(run, i);
      }
    }
    return found;
  }

  /** The run at `i` grown unit by unit to both sides; undefined when shorter than a leak. */
  private extend(input: string, run: Run, i: number): Found | undefined {
    const { units, fragmentUnits } = run.form;
    let start = i;
    let first = run.at;
    while (first > 0 && input.endsWith(units[first - 1]!, start)) start -= units[--first]!.length;
    let end = i + run.text.length;
    let next = run.at + run.length;
    while (next < units.length && input.startsWith(units[next]!, end)) end += units[next++]!.length;
    if (next - first < Math.min(fragmentUnits, units.length)) return undefined;
    return { start, end, known: run.known, whole: first === 0 && next === units.length };
  }
}

/** Two characters at `i` as one 16-bit number (their low bytes): a key's start, for the bit set. */
const pairAt = (s: string, i: number): number => ((s.charCodeAt(i) & 255) << 8) | (s.charCodeAt(i + 1) & 255);

const WORD = /[A-Za-z0-9]/;
const standsAlone = (s: string, at: number, length: number): boolean =>
  !WORD.test(s[at - 1] ?? '') && !WORD.test(s[at + length] ?? '');

function merge(found: Found[]): Found[] {
  return mergeSpans(found, (last, f) => (last.whole ||= f.whole));
}

/**
 * Overlapping spans merged into one, in order; a secret's mark wins over a token's, and `fold`
 * carries over what else a span says.
 */
export function mergeSpans<T extends { start: number; end: number; known: Known }>(
  spans: T[],
  fold: (into: T, next: T) => void,
): T[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: T[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      last.end = Math.max(last.end, s.end);
      fold(last, s);
      if (s.known.kind === 'secret' && last.known.kind !== 'secret') last.known = s.known;
    } else out.push({ ...s });
  }
  return out;
}
