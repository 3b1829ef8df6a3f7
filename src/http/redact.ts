// Secrets never leave the process: every string a check, a report, a k6 artefact, the history, the
// terminal or a client's echoed output shows passes through a Redactor. It hides VALUES: the
// client secrets it was given and every token the run has been handed, in every form a service or
// a client can write them (encodings.ts), whole or a fragment long enough to give most of one away
// (matcher.ts). Replacing values leaves the text around them as it was, so a redacted JSON file
// still parses and the harness's own words (check ids, field names) are never touched.
//
// Text that came from outside (a service's body quoted in a report, k6's output, a client's
// output) may also hold credentials no one told the harness about: `foreign` hides, in place,
// whatever stands where a credential stands (structure.ts). What it finds there is hidden where it
// stands and never learned as a value to hunt elsewhere: a word after `client_secret=` in a
// service's error text is no reason to censor that word in the harness's own output.
//
// The same matcher judges: a refusal carries a credential when it holds a secret the run was given
// or a token the run was issued, in any form (containsSecret, containsIssuedToken), whatever the
// field or header it sits in.

import { parseJson } from './read-answer.js';
import { fingerprint, isRedactionMark, REDACTED } from './redact/fingerprint.js';
import { basicAuthFormsOf } from './redact/encodings.js';
import { mergeSpans, ValueMatcher, type Known } from './redact/matcher.js';
import { ReaderMatcher } from './redact/reader.js';
import { redactStructure, type CredentialKind } from './redact/structure.js';

export { fingerprint } from './redact/fingerprint.js';

/**
 * A value that merely stood where a credential stands in an answer (a 401's `token` field, a
 * Set-Cookie) is hidden from then on only if it is this long and has no space: a token is, while
 * `none`, `null` or a word is not, and hiding a word everywhere would eat the harness's own text.
 */
export const MIN_SEEN_TOKEN_LENGTH = 16;

/** Strings text() remembers what it made of (a report holds a few thousand distinct ones). */
const MEMO_STRINGS = 20_000;
/** And their characters, both sides counted: past this the memo starts over too (~8 MB at most). */
const MEMO_CHARS = 4_000_000;
/**
 * text() remembers strings up to this long: a k6 log or a whole report file is read once (the
 * reader keeps its last input's readings). deep() remembers every string of the report it walks.
 */
const MEMO_MAX_LENGTH = 4_096;

export interface RedactorOptions {
  /**
   * The harness's own words (check ids and titles, flags): a piece of a secret that is also a
   * piece of these is left, so a secret made of words never censors them. A whole value is
   * hidden whatever it is.
   */
  keep?: readonly string[];
}

export class Redactor {
  private readonly values = new ValueMatcher();
  /** The same values as a reader reads them: any layout, stacked encodings, pieces (reader.ts). */
  private readonly reader: ReaderMatcher;
  private readonly keep: string;
  /**
   * What text() made of each string it read, kept until the redactor learns something that could
   * change it (a new value, a token become a secret). A run redacts each check's message and
   * evidence as it comes, the terminal its line again, then the whole report twice (for the
   * history, for the folder): the same strings, read once. Bounded: past MEMO_STRINGS strings or
   * MEMO_CHARS characters it starts over.
   */
  private readonly memo = new Map<string, string>();
  private memoChars = 0;

  constructor(options: RedactorOptions = {}) {
    this.keep = (options.keep ?? []).join('\n');
    this.reader = new ReaderMatcher(this.keep);
  }

  /** A client secret the run was given; with its client_id, its Basic auth form (`client_id:secret`) too. */
  addSecret(secret: string | undefined, clientId?: string): void {
    if (!secret) return;
    this.add(secret, 'secret', true);
    // Every POST /tokens gives the secret again: its Basic forms are computed once.
    if (clientId !== undefined && !this.values.has(`${clientId}:${secret}`)) {
      this.forget();
      this.values.add(
        `${clientId}:${secret}`,
        { kind: 'secret', judged: true, mark: REDACTED },
        basicAuthFormsOf(clientId, secret),
      );
    }
  }

  /** A token issued to this run: hidden as its fingerprint, and no refusal may carry it. */
  addToken(token: string | undefined): void {
    if (token) this.add(token, 'token', true);
  }

  /** A value an answer carried where a credential stands: hidden from now on if it looks like a token. */
  addSeen(value: string | undefined): void {
    if (value && value.length >= MIN_SEEN_TOKEN_LENGTH && !/\s/.test(value) && !isRedactionMark(value))
      this.add(value, 'token', false);
  }

  /** True when the input holds a whole client secret the run was given, in any form. */
  containsSecret(input: string): boolean {
    return this.heldWhole(input).secret;
  }

  /** True when the input holds a whole token issued to this run, in any form. */
  containsIssuedToken(input: string): boolean {
    return this.heldWhole(input).token;
  }

  /**
   * Which judged kinds the input holds whole, in any form: both in one read of the input, which
   * every answer the service client reads costs (a probe's stream reads 50 a second).
   */
  heldWhole(input: string): Record<CredentialKind, boolean> {
    const held = { secret: false, token: false };
    const judged = (k: Known) => k.judged;
    for (const f of this.values.occurrences(input, judged)) if (f.whole) held[f.known.kind] = true;
    if (held.secret && held.token) return held;
    for (const f of this.reader.find(input, judged)) if (f.whole) held[f.known.kind] = true;
    return held;
  }

  /**
   * The input with every known value, in any form, replaced by its mark. What only the reader's
   * view found (a value spaced out, wrapped, or spread over fields) is replaced piece by piece
   * around the quotes, line breaks and tags inside it, so the text keeps its structure.
   */
  text(input: string): string {
    return input.length > MEMO_MAX_LENGTH ? this.read(input) : this.remembered(input);
  }

  /** text() through the memo, whatever the length. */
  private remembered(input: string): string {
    let safe = this.memo.get(input);
    if (safe === undefined) {
      safe = this.read(input);
      if (this.memo.size >= MEMO_STRINGS || this.memoChars + input.length + safe.length > MEMO_CHARS) this.forget();
      this.memo.set(input, safe);
      this.memoChars += input.length + safe.length;
    }
    return safe;
  }

  private forget(): void {
    this.memo.clear();
    this.memoChars = 0;
  }

  /** text() without the memo. */
  private read(input: string): string {
    const exact = this.values.find(input).filter((f) => f.whole || !this.keep.includes(input.slice(f.start, f.end)));
    const read = this.reader
      .find(input)
      .filter((r) => !exact.some((e) => e.start <= r.start && r.end <= e.end))
      .map((r) => ({ ...r, split: true }));
    if (exact.length === 0 && read.length === 0) return input;
    let out = '';
    let from = 0;
    for (const f of mergeSpans<Span>([...exact.map((e) => ({ ...e, split: false })), ...read], (into, next) => {
      into.split ||= next.split;
    })) {
      const shown = input.slice(f.start, f.end);
      out += input.slice(from, f.start) + (f.split ? markPieces(shown, f.known.mark) : f.known.mark);
      from = f.end;
    }
    return out + input.slice(from);
  }

  /** Text from outside the harness: known values, and whatever stands where a credential stands. */
  foreign(input: string): string {
    return redactStructure(this.text(input), (value, kind) => this.markInPlace(value, kind));
  }

  /** Redacts every string inside plain data (a report, a record) without changing its shape. */
  deep<T>(value: T): T {
    // A walk rather than text(JSON.stringify(…)): the walk sees each string whole and unescaped.
    // A report repeats its keys and many values (ids, statuses, notes) hundreds of times: each
    // distinct string is read once (text()'s memo).
    const text = (s: string): string => this.remembered(s);
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }

  /**
   * A file's text redacted; a JSON file stays JSON: were a replacement ever to cut into an escape
   * (a fragment ending on `\\`), the file is redacted string by string instead.
   */
  file(content: string, { fromOutside = false } = {}): string {
    const safe = fromOutside ? this.foreign(content) : this.text(content);
    if (safe === content) return content;
    const json = parseJson(content);
    if (json === undefined || parseJson(safe) !== undefined) return safe;
    return `${JSON.stringify(this.deep(json), null, 2)}\n`;
  }

  private add(value: string, kind: CredentialKind, judged: boolean): void {
    const known = this.values.has(value);
    if (known) {
      // Once judged, always judged; a value first seen as a token and then given as a secret is the
      // secret. The same Known object serves both matchers, so nothing else is to index: every
      // answer of POST /tokens hands the same token again, and its forms cost ~0.4 ms to compute.
      known.judged ||= judged;
      if (kind === 'secret' && known.kind !== 'secret') {
        // Its mark changes: what was hidden as a token's fingerprint is now [redacted].
        this.forget();
        Object.assign(known, { kind, mark: REDACTED });
      }
      return;
    }
    this.forget();
    this.values.add(value, { kind, judged, mark: kind === 'secret' ? REDACTED : fingerprint(value) } satisfies Known);
    // The same Known for both matchers: what upgrades it for one upgrades it for the other.
    this.reader.add(value, this.values.has(value)!);
  }

  private markInPlace(value: string, kind: CredentialKind): string {
    return this.values.has(value)?.mark ?? (kind === 'secret' ? REDACTED : fingerprint(value));
  }
}

interface Span {
  start: number;
  end: number;
  known: Known;
  split: boolean;
}

// What stays of a span found by the reader: quotes, line breaks (raw or JSON-escaped) and HTML tags,
// so a value spread over two JSON strings or table cells leaves both strings and the table whole.
const STRUCTURE = /((?<!\\)"|\\[nrt]|\r\n|\n|\r|<[^<>]*>)/;

function markPieces(shown: string, mark: string): string {
  return shown
    .split(STRUCTURE)
    .map((piece, i) => (i % 2 === 1 || !/[A-Za-z0-9]/.test(piece) ? piece : mark))
    .join('');
}
