// A service's answer as a report, a terminal line or the history quotes it: by the spec. The values
// the spec defines and a client acts on (src/spec/quotable.ts: §7's error code, token_type, valid,
// expires_at) are shown as they are; the free text it allows (validate's message, the health line)
// after the redactor's matcher, cut; every other value as its shape: type, length, and for a long
// one a fingerprint. A secret or token the service puts in a field of its own, in any encoding or
// layout, then never reaches an output: only the spec's own fields could carry one, and the matcher
// guards those. --verbose-bodies shows the whole answer, still through the matcher.

import { createHash } from 'node:crypto';
import { isJsonObject } from '../spec/json-object.js';
import {
  FINGERPRINT_FROM,
  FREE_TEXT_PATHS,
  headerQuotingOf,
  MAX_QUOTED_CODE,
  MAX_QUOTED_TEXT,
  quotingOf,
  type Quoting,
} from '../spec/quotable.js';
import type { Exchange } from './exchange.js';
import { parseJson } from './read-answer.js';
import type { Redactor } from './redact.js';

const MAX_DEPTH = 4;
const MAX_FIELDS = 12;
const MAX_ITEMS = 3;
/** A shape holds no value of the service's: long enough for every field a reader acts on. */
const MAX_SHAPE = 400;
/** --verbose-bodies: the whole answer through the matcher, cut here. */
const MAX_VERBOSE = 600;
/** A field name shown as it is: a name, not a value smuggled in as a key. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,39}$/;
/** What the redactor writes in place of a value it knows (a token's fingerprint, a secret's mark). */
const MARKS = /tk_[0-9a-f]{8}|\[redacted\]/g;

export type QuotedAnswer = Pick<Exchange, 'text'> & Partial<Pick<Exchange, 'request' | 'json' | 'headers'>>;

export interface QuoteOptions {
  /** Longest quote of a free text, or of the whole answer with `verbose`. */
  max?: number;
  /** --verbose-bodies: the whole answer, through the matcher. */
  verbose?: boolean;
}

/**
 * A service's string in double quotes. Not JSON.stringify: control characters stay as they are, for
 * every output to escape its one way (`\x1b` on the terminal and in every report).
 */
const quoted = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;
const chars = (n: number) => `${n} char${n === 1 ? '' : 's'}`;
const flat = (text: string) => text.replace(/\s+/g, ' ').trim();
const cut = (text: string, max: number) => ([...text].length > max ? `${[...text].slice(0, max).join('')}…` : text);

/**
 * `<string, 64 chars, sha256:1a2b3c4d>`: what a value is, never what it says. A value holding a
 * secret or token the redactor knows is named by its mark instead of a digest, which could be
 * tried against guesses of a short secret.
 */
export function valueShape(redactor: Redactor, value: string, type = 'string'): string {
  const n = [...value].length;
  const marks = [...new Set(redactor.text(value).match(MARKS) ?? [])];
  const tag = marks.length
    ? `, holds ${marks.join(', ')}`
    : n >= FINGERPRINT_FROM
      ? `, sha256:${createHash('sha256').update(value).digest('hex').slice(0, 8)}`
      : '';
  return `<${type}, ${chars(n)}${tag}>`;
}

function shapeOf(redactor: Redactor, value: unknown, depth: number, quoting?: Quoting): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return quoting ? String(value) : '<number>';
  if (typeof value === 'string') {
    if (quoting === 'text') return quoted(cut(flat(redactor.foreign(value)), MAX_QUOTED_TEXT));
    const shown = quoting ? redactor.foreign(value) : undefined;
    // A code is short; anything longer in its place is shown as what it is. Control characters in
    // a short one are shown escaped by every output (the terminal's and the renderers' escaping).
    if (shown !== undefined && [...shown].length <= MAX_QUOTED_CODE) return quoted(shown);
    return JSON.stringify(valueShape(redactor, value));
  }
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? '[…]' : '{…}';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => shapeOf(redactor, v, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`…${value.length} items`);
    return `[${items.join(',')}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const fields = entries.slice(0, MAX_FIELDS).map(([k, v]) => {
      const key =
        PLAIN_KEY.test(k) && redactor.text(k) === k ? JSON.stringify(k) : `"${valueShape(redactor, k, 'key')}"`;
      // Only the spec's own fields, at the top of its flat bodies, are quoted.
      return `${key}:${shapeOf(redactor, v, depth + 1, depth === 0 && PLAIN_KEY.test(k) ? quotingOf(k) : undefined)}`;
    });
    if (entries.length > MAX_FIELDS) fields.push(`…${entries.length} fields`);
    return `{${fields.join(',')}}`;
  }
  return `<${typeof value}>`;
}

/** One field's value as an output may show it (`"unauthorized"`, `1764000000`, `"<string, 64 chars>"`), JSON-quoted. */
export function quoteField(redactor: Redactor, field: string, value: unknown): string {
  return value === undefined ? 'absent' : shapeOf(redactor, value, 1, quotingOf(field));
}

/** A header's value as an output may show it, JSON-quoted; `absent` when the answer has none. */
export function quoteHeader(redactor: Redactor, name: string, value: string | undefined): string {
  return value === undefined ? 'absent' : shapeOf(redactor, value, 1, headerQuotingOf(name.toLowerCase()));
}

const pathOf = (request: string | undefined) => request?.split(' ')[1]?.split('?')[0];

/** The answer's body as an output may quote it (see the top of this file), in backticks. */
export function quoteBody(redactor: Redactor, ex: QuotedAnswer, options: QuoteOptions = {}): string {
  if (ex.text.trim() === '') return '(empty body)';
  if (options.verbose) return '`' + cut(flat(redactor.foreign(ex.text)), Math.max(options.max ?? 0, MAX_VERBOSE)) + '`';
  const json = ex.json !== undefined ? ex.json : parseJson(ex.text);
  if (json !== undefined) return '`' + cut(shapeOf(redactor, json, isJsonObject(json) ? 0 : 1), MAX_SHAPE) + '`';
  if (FREE_TEXT_PATHS.includes(pathOf(ex.request) ?? ''))
    return '`' + cut(flat(redactor.foreign(ex.text)), Math.min(options.max ?? MAX_QUOTED_TEXT, MAX_QUOTED_TEXT)) + '`';
  const type = ex.headers?.['content-type']?.split(';')[0]?.trim();
  return valueShape(redactor, ex.text, type && /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'text');
}
